ALTER TABLE "simulator_messages" ADD COLUMN "is_edited" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "simulator_messages" ADD COLUMN "quoted_provider_id" text;