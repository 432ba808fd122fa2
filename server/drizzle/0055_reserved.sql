-- #33.3-5 Connections: what a connection does with calls and groups, the outages it recovered from, and the
-- Baileys inbox that keeps what WhatsApp delivered until the pipeline stored it (docs/messaging.md).
ALTER TABLE "whatsapps" ADD COLUMN "group_mode" text DEFAULT 'ignore' NOT NULL;--> statement-breakpoint
ALTER TABLE "whatsapps" ADD COLUMN "call_mode" text DEFAULT 'ring' NOT NULL;--> statement-breakpoint
ALTER TABLE "whatsapps" ADD COLUMN "call_reject_message" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "whatsapps" ADD COLUMN "call_opens_ticket" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE TABLE "connection_outages" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE cascade,
	"whatsapp_id" integer NOT NULL REFERENCES "whatsapps"("id") ON DELETE cascade,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "connection_outages_whatsapp_idx" ON "connection_outages" ("whatsapp_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "connection_outages_open_uq" ON "connection_outages" ("whatsapp_id") WHERE "ended_at" is null;--> statement-breakpoint
CREATE INDEX "messages_recovery_idx" ON "messages" ((("data"->>'recovery')::int)) WHERE "data" ? 'recovery';--> statement-breakpoint
CREATE TABLE "baileys_inbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"whatsapp_id" integer NOT NULL REFERENCES "whatsapps"("id") ON DELETE cascade,
	"provider_id" text NOT NULL,
	"source" text NOT NULL,
	"payload" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "baileys_inbox_uq" ON "baileys_inbox" ("whatsapp_id","provider_id");
--> statement-breakpoint
-- Companies that took group messages (CheckMsgIsGroup disabled) keep doing so on each of their connections.
UPDATE "whatsapps" SET "group_mode" = 'tickets' WHERE "company_id" IN (
	SELECT "company_id" FROM "settings" WHERE "key" = 'CheckMsgIsGroup' AND "value" = 'disabled');
