ALTER TABLE "api_send_keys" ADD COLUMN "parts" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "api_send_keys" ADD COLUMN "claim_token" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_send_keys" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
-- Claims left without an answer by a crash before this change are stale at once (taken over by the next call).
UPDATE "api_send_keys" SET "updated_at" = "created_at";
