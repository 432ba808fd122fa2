ALTER TABLE "campaign_shippings" ADD COLUMN "error_code" integer;--> statement-breakpoint
ALTER TABLE "campaign_shippings" ADD COLUMN "rate_limited" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "template" jsonb;