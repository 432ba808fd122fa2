-- #35.5 Import from Whaticket SaaS (docs/migration.md): which Recado row each imported Whaticket row became, so a
-- re-run updates instead of duplicating and an interrupted run continues. `source` names the Whaticket database
-- and company ("host/db#companyId"); `source_table` is Whaticket's table name; `source_id` its id as text.
CREATE TABLE "whaticket_import_map" (
	"source" text NOT NULL,
	"source_table" text NOT NULL,
	"source_id" text NOT NULL,
	"company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE cascade,
	"target_id" bigint NOT NULL,
	"imported_at" timestamp with time zone DEFAULT now() NOT NULL,
	PRIMARY KEY ("source", "source_table", "source_id")
);
--> statement-breakpoint
CREATE INDEX "whaticket_import_map_company_idx" ON "whaticket_import_map" USING btree ("company_id");
