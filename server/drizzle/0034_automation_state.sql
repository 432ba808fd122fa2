ALTER TABLE "tickets" ADD COLUMN "automation" jsonb;
--> statement-breakpoint
CREATE TABLE "automation_incidents" (
	"company_id" integer NOT NULL,
	"source" text NOT NULL,
	"source_id" integer NOT NULL,
	"kind" text NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_error" text DEFAULT '' NOT NULL,
	"last_failure_at" timestamp with time zone,
	"alerted_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "automation_incidents_pk" PRIMARY KEY("company_id","source","source_id")
);
--> statement-breakpoint
ALTER TABLE "automation_incidents" ADD CONSTRAINT "automation_incidents_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
