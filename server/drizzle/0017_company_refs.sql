-- Records that point at a prompt or integration that is gone, or that belongs to another company, lose it
-- before the foreign keys arrive (the API now refuses both).
UPDATE "queues" r SET "prompt_id" = NULL WHERE r."prompt_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "prompts" x WHERE x."id" = r."prompt_id" AND x."company_id" = r."company_id");--> statement-breakpoint
UPDATE "queues" r SET "integration_id" = NULL WHERE r."integration_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "queue_integrations" x WHERE x."id" = r."integration_id" AND x."company_id" = r."company_id");--> statement-breakpoint
UPDATE "tickets" r SET "prompt_id" = NULL WHERE r."prompt_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "prompts" x WHERE x."id" = r."prompt_id" AND x."company_id" = r."company_id");--> statement-breakpoint
UPDATE "tickets" r SET "integration_id" = NULL WHERE r."integration_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "queue_integrations" x WHERE x."id" = r."integration_id" AND x."company_id" = r."company_id");--> statement-breakpoint
UPDATE "whatsapps" r SET "prompt_id" = NULL WHERE r."prompt_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "prompts" x WHERE x."id" = r."prompt_id" AND x."company_id" = r."company_id");--> statement-breakpoint
UPDATE "whatsapps" r SET "integration_id" = NULL WHERE r."integration_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "queue_integrations" x WHERE x."id" = r."integration_id" AND x."company_id" = r."company_id");--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_integration_id_queue_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."queue_integrations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "queues" ADD CONSTRAINT "queues_prompt_id_prompts_id_fk" FOREIGN KEY ("prompt_id") REFERENCES "public"."prompts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_integration_id_queue_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."queue_integrations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_prompt_id_prompts_id_fk" FOREIGN KEY ("prompt_id") REFERENCES "public"."prompts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "whatsapps" ADD CONSTRAINT "whatsapps_prompt_id_prompts_id_fk" FOREIGN KEY ("prompt_id") REFERENCES "public"."prompts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "whatsapps" ADD CONSTRAINT "whatsapps_integration_id_queue_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."queue_integrations"("id") ON DELETE set null ON UPDATE no action;
