-- #33.1 and #33.2 connection health (docs/connection-health.md): every state a connection went through, with
-- its reason, and the outages that lasted long enough to tell the admins.
CREATE TABLE IF NOT EXISTS "connection_states" (
  "id" serial PRIMARY KEY,
  "company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE CASCADE,
  "whatsapp_id" integer NOT NULL REFERENCES "whatsapps"("id") ON DELETE CASCADE,
  "status" text NOT NULL,
  "reason" text,
  "detail" text,
  "at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "connection_states_connection_at_idx" ON "connection_states" ("whatsapp_id", "at", "id");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "connection_incidents" (
  "id" serial PRIMARY KEY,
  "company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE CASCADE,
  "whatsapp_id" integer NOT NULL REFERENCES "whatsapps"("id") ON DELETE CASCADE,
  "status" text NOT NULL,
  "reason" text,
  "started_at" timestamp with time zone NOT NULL,
  "alerted_at" timestamp with time zone,
  "ended_at" timestamp with time zone,
  "back_at" timestamp with time zone
);
--> statement-breakpoint
-- One open outage per connection: leaving CONNECTED twice cannot open two.
CREATE UNIQUE INDEX IF NOT EXISTS "connection_incidents_open_uq" ON "connection_incidents" ("whatsapp_id") WHERE "ended_at" IS NULL;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "connection_incidents_company_idx" ON "connection_incidents" ("company_id", "started_at");
--> statement-breakpoint
-- The history starts with each connection's state as it is now, so its first drop is known to leave CONNECTED.
INSERT INTO "connection_states" ("company_id", "whatsapp_id", "status", "at")
SELECT "company_id", "id", "status", now() FROM "whatsapps";
