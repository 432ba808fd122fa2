-- #30.2 Presence per attendant: online / away / offline, and when it last changed. The routing engine
-- offers tickets only to attendants whose presence is 'online'. The old boolean `online` stays for the
-- dashboard's "online now" until every reader moves to `presence`.
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "presence" text DEFAULT 'offline' NOT NULL;
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "presence_at" timestamp with time zone;
--> statement-breakpoint
DO $$ BEGIN
  ALTER TABLE "users" ADD CONSTRAINT "users_presence_ck" CHECK ("presence" IN ('online', 'away', 'offline'));
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "users_company_presence_idx" ON "users" ("company_id", "presence");
--> statement-breakpoint
-- One row per (user, process) while that process holds the user's sockets. The process renews expires_at
-- (a durable per-process job); when its last socket of the user closes it shortens expires_at to the grace
-- period. A user whose every row expired (sockets closed, or the process died) goes offline (presence.sweep).
CREATE TABLE IF NOT EXISTS "presence_leases" (
  "user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "process_id" text NOT NULL,
  "company_id" integer NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  PRIMARY KEY ("user_id", "process_id")
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "presence_leases_expires_idx" ON "presence_leases" ("expires_at");
--> statement-breakpoint
-- Whether the user chose the presence themselves (the top-bar switch): a chosen 'away' or 'offline' is kept
-- over reloads and activity; one the server set (idle, sockets closed) gives way to 'online' again.
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "presence_manual" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
-- #30.8 When the user last sent a message on a ticket (the live view's "time since last reply"), kept by the
-- live module's listener on message.sent; filled once from the messages already sent.
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "last_reply_at" timestamp with time zone;
--> statement-breakpoint
UPDATE "users" u SET "last_reply_at" = m."at"
FROM (SELECT "user_id", max("created_at") AS "at" FROM "messages" WHERE "from_me" AND "user_id" IS NOT NULL GROUP BY "user_id") m
WHERE m."user_id" = u."id" AND u."last_reply_at" IS NULL;
