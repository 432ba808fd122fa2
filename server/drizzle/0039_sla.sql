-- #30.5 SLA policies, due times on each ticket, and the outcome of each clock cycle (docs/metrics.md "SLA").
CREATE TABLE IF NOT EXISTS "sla_policies" (
  "id" serial PRIMARY KEY NOT NULL,
  "company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE cascade,
  "name" text NOT NULL,
  "first_response_minutes" integer,
  "next_response_minutes" integer,
  "resolution_minutes" integer,
  "business_hours" boolean DEFAULT false NOT NULL,
  "queue_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
  "priorities" smallint[] DEFAULT '{}'::smallint[] NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "sla_policies_company_idx" ON "sla_policies" ("company_id");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sla_outcomes" (
  "id" serial PRIMARY KEY NOT NULL,
  "company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE cascade,
  "ticket_id" integer NOT NULL REFERENCES "tickets"("id") ON DELETE cascade,
  "kind" text NOT NULL,
  "outcome" text NOT NULL,
  "policy_id" integer,
  "due_at" timestamp with time zone NOT NULL,
  "at" timestamp with time zone NOT NULL,
  "queue_id" integer,
  "user_id" integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "sla_outcomes_cycle_uq" ON "sla_outcomes" ("ticket_id", "kind", "due_at");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "sla_outcomes_company_at_idx" ON "sla_outcomes" ("company_id", "at");
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "first_response_due_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "next_response_due_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "resolution_due_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "sla_at_risk_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "sla_breached" text[] DEFAULT '{}'::text[] NOT NULL;
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "sla_state" jsonb;
