-- #35.4 Company export (docs/migration.md "Recado archive format"): one row per export, its durable job's
-- progress (the table and the last key written, so a restarted export continues where it stopped) and the
-- finished archive under DATA_DIR/company-exports, removed after `expires_at`.
CREATE TABLE "company_exports" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE cascade,
	"requested_by" integer,
	"status" text DEFAULT 'queued' NOT NULL,
	"progress" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"size" bigint,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"expires_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "company_exports_company_idx" ON "company_exports" ("company_id", "id");
