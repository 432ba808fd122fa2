-- #30.1/#30.3 Routing (docs/routing.md): each queue's assignment policy, capacity and waiting-line message;
-- each user's maximum of open tickets; the round-robin pointer; the line's state per ticket; the skips and
-- the assignments the engine made (the ETA's median wait and the counters come from them).
ALTER TABLE "queues" ADD COLUMN IF NOT EXISTS "assignment_policy" text DEFAULT 'manual' NOT NULL;
--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN IF NOT EXISTS "capacity" integer;
--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN IF NOT EXISTS "waiting_message" text DEFAULT '' NOT NULL;
--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN IF NOT EXISTS "waiting_message_step" integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN IF NOT EXISTS "waiting_message_interval" integer DEFAULT 5 NOT NULL;
--> statement-breakpoint
ALTER TABLE "queues" ADD COLUMN IF NOT EXISTS "rr_last_user_id" integer;
--> statement-breakpoint
DO $$ BEGIN
  ALTER TABLE "queues" ADD CONSTRAINT "queues_assignment_policy_ck" CHECK ("assignment_policy" IN ('manual', 'round_robin', 'least_busy'));
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
--> statement-breakpoint
DO $$ BEGIN
  ALTER TABLE "queues" ADD CONSTRAINT "queues_capacity_ck" CHECK ("capacity" IS NULL OR "capacity" >= 0);
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "max_tickets" integer;
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "last_assigned_at" timestamp with time zone;
--> statement-breakpoint
DO $$ BEGIN
  ALTER TABLE "users" ADD CONSTRAINT "users_max_tickets_ck" CHECK ("max_tickets" IS NULL OR "max_tickets" >= 0);
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "routing_waits" (
	"ticket_id" integer PRIMARY KEY NOT NULL REFERENCES "tickets"("id") ON DELETE cascade,
	"company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE cascade,
	"queue_id" integer REFERENCES "queues"("id") ON DELETE set null,
	"since" timestamp with time zone NOT NULL,
	"left_at" timestamp with time zone,
	"told_position" integer,
	"told_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "routing_waits_queue_left_idx" ON "routing_waits" ("queue_id", "left_at");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "routing_skips" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE cascade,
	"ticket_id" integer NOT NULL REFERENCES "tickets"("id") ON DELETE cascade,
	"user_id" integer REFERENCES "users"("id") ON DELETE cascade,
	"queue_id" integer REFERENCES "queues"("id") ON DELETE set null,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "routing_skips_ticket_idx" ON "routing_skips" ("ticket_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "routing_skips_company_user_idx" ON "routing_skips" ("company_id", "user_id", "created_at");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "routing_assignments" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE cascade,
	"queue_id" integer REFERENCES "queues"("id") ON DELETE set null,
	"ticket_id" integer NOT NULL REFERENCES "tickets"("id") ON DELETE cascade,
	"user_id" integer REFERENCES "users"("id") ON DELETE set null,
	"policy" text NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "routing_assignments_company_created_idx" ON "routing_assignments" ("company_id", "created_at");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "routing_assignments_ticket_idx" ON "routing_assignments" ("ticket_id");
--> statement-breakpoint
-- The waiting line of a queue (the engine reads it by priority, then oldest: a queue's line is short).
CREATE INDEX IF NOT EXISTS "tickets_queue_waiting_idx" ON "tickets" ("queue_id", "created_at", "id") WHERE "status" = 'pending' AND "user_id" IS NULL;
