-- #31 Flow analytics (docs/flows.md "Analytics"): one row per counted step of a flow run (entered a node,
-- left it by an exit, dropped on it, a run's start and end), appended once per step; the stats route groups
-- a period's rows by node and exit.
CREATE TABLE IF NOT EXISTS "flow_step_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE CASCADE,
	"flow_id" integer NOT NULL REFERENCES "flows"("id") ON DELETE CASCADE,
	"run_id" integer NOT NULL,
	"node_id" text NOT NULL,
	"kind" text NOT NULL,
	"exit" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "flow_step_events_flow_idx" ON "flow_step_events" USING btree ("flow_id","created_at");
