-- Webhook order (docs/webhooks.md#order): a per-company sequence given to each event as it is queued, the
-- delivery's lane (its contact: deliveries of one lane and subscription go one after another), and the
-- signing secret of the n8n / webhook queue integrations.
CREATE TABLE "webhook_sequences" (
	"company_id" integer PRIMARY KEY NOT NULL,
	"last" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_sequences" ADD CONSTRAINT "webhook_sequences_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "sequence" bigint;
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "lane" text;
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_lane_idx" ON "webhook_deliveries" USING btree ("webhook_id","lane","sequence") WHERE status = 'pending' and lane is not null;
--> statement-breakpoint
ALTER TABLE "queue_integrations" ADD COLUMN "hook_secret_sealed" text;
