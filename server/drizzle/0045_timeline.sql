-- Ticket timeline (#32.5, docs/productivity.md "Ticket timeline"): one row per thing that happened to a
-- ticket (created, accepted, transferred, tags, priority, notes, snooze, SLA, resolved, reopened, rated…),
-- with who did it and when. Append-only: written in the same transaction as the change where practical.
CREATE TABLE IF NOT EXISTS "ticket_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"type" text NOT NULL,
	"actor_kind" text DEFAULT 'system' NOT NULL,
	"actor_id" integer,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ticket_events_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "ticket_events_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "ticket_events_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ticket_events_company_ticket_idx" ON "ticket_events" USING btree ("company_id","ticket_id","id");
