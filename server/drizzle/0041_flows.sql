-- Flows (docs/flows.md): a company's flows, their immutable published versions and the runs (one
-- conversation's position and variables); the connection's flow; the plan flag useFlows.
ALTER TABLE "plans" ADD COLUMN IF NOT EXISTS "use_flows" boolean DEFAULT true NOT NULL;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "flows" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"graph" jsonb NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"published_version" integer,
	"published_at" timestamp with time zone,
	"draft_changed" boolean DEFAULT true NOT NULL,
	"triggers" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "flows_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "flows_company_idx" ON "flows" USING btree ("company_id");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "flow_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"flow_id" integer NOT NULL,
	"version" integer NOT NULL,
	"graph" jsonb NOT NULL,
	"published_by" integer,
	"published_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "flow_versions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "flow_versions_flow_id_flows_id_fk" FOREIGN KEY ("flow_id") REFERENCES "public"."flows"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "flow_versions_published_by_users_id_fk" FOREIGN KEY ("published_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "flow_versions_flow_version_uq" ON "flow_versions" USING btree ("flow_id","version");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "flow_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"flow_id" integer NOT NULL,
	"version_id" integer,
	"version" integer,
	"try_graph" jsonb,
	"ticket_id" integer NOT NULL,
	"contact_id" integer,
	"whatsapp_id" integer,
	"current_node_id" text,
	"status" text DEFAULT 'running' NOT NULL,
	"variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"node_state" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"seq" integer DEFAULT 0 NOT NULL,
	"processed_message_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"trigger" text DEFAULT 'connection' NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "flow_runs_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "flow_runs_flow_id_flows_id_fk" FOREIGN KEY ("flow_id") REFERENCES "public"."flows"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "flow_runs_version_id_flow_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."flow_versions"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "flow_runs_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "flow_runs_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action,
	CONSTRAINT "flow_runs_whatsapp_id_whatsapps_id_fk" FOREIGN KEY ("whatsapp_id") REFERENCES "public"."whatsapps"("id") ON DELETE set null ON UPDATE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "flow_runs_active_ticket_uq" ON "flow_runs" USING btree ("ticket_id") WHERE status in ('running', 'waiting', 'held');
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "flow_runs_flow_idx" ON "flow_runs" USING btree ("flow_id","created_at");
--> statement-breakpoint
ALTER TABLE "whatsapps" ADD COLUMN IF NOT EXISTS "flow_id" integer;
--> statement-breakpoint
ALTER TABLE "whatsapps" ADD CONSTRAINT "whatsapps_flow_id_flows_id_fk" FOREIGN KEY ("flow_id") REFERENCES "public"."flows"("id") ON DELETE set null ON UPDATE no action;
