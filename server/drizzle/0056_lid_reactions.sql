-- #33.6 WhatsApp LIDs: what each connection learnt about a hidden id (LID) and the phone number behind it
-- (docs/messaging.md "LID numbers"). Company and connection scoped: one connection's knowledge never
-- answers for another company.
CREATE TABLE IF NOT EXISTS "lid_mappings" (
  "id" serial PRIMARY KEY,
  "company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE CASCADE,
  "whatsapp_id" integer NOT NULL REFERENCES "whatsapps"("id") ON DELETE CASCADE,
  "lid" text NOT NULL,
  "number" text NOT NULL,
  "source" text NOT NULL DEFAULT '',
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "lid_mappings_connection_lid_uq" ON "lid_mappings" ("whatsapp_id", "lid");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "lid_mappings_company_number_idx" ON "lid_mappings" ("company_id", "number");
--> statement-breakpoint
-- #33.7 Reactions go through the outbox keyed by the message reacted to: several may wait for one message
-- (each in order), beside that message's own send. Only non-reaction rows stay one per message.
DROP INDEX IF EXISTS "outbound_queue_message_uq";
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "outbound_queue_message_uq" ON "outbound_queue" ("message_id") WHERE NOT ("job" ? 'reaction');
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "outbound_queue_message_idx" ON "outbound_queue" ("message_id");
