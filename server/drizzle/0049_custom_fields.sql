-- Custom fields (#32.7, docs/productivity.md "Custom fields"): typed definitions per company and entity
-- (contact, ticket), values in a jsonb column on the rows themselves, filtered by containment (GIN).
CREATE TABLE IF NOT EXISTS "custom_field_definitions" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"entity" text NOT NULL,
	"key" text NOT NULL,
	"label" text NOT NULL,
	"type" text NOT NULL,
	"options" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"required" boolean DEFAULT false NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "custom_field_definitions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "custom_field_definitions_key_uq" ON "custom_field_definitions" USING btree ("company_id","entity","key");
--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN IF NOT EXISTS "custom_fields" jsonb DEFAULT '{}'::jsonb NOT NULL;
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "custom_fields" jsonb DEFAULT '{}'::jsonb NOT NULL;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contacts_custom_fields_gin" ON "contacts" USING gin ("custom_fields" jsonb_path_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "tickets_custom_fields_gin" ON "tickets" USING gin ("custom_fields" jsonb_path_ops);
--> statement-breakpoint
-- The free "extra info" list (contact_custom_fields: name/value pairs) becomes text fields: one definition
-- per distinct name and company (key: the name as a slug), the values copied onto the contacts. Values
-- already set win; running it again changes nothing. Kept as a function so tests run the same code.
CREATE OR REPLACE FUNCTION custom_fields_from_extra_info() RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS cf_extra ON COMMIT DROP AS
    SELECT c.company_id, x.contact_id, x.id, x.name, x.value,
      left(coalesce(nullif(regexp_replace(regexp_replace(regexp_replace(search_norm(trim(x.name)),
        '[^a-z0-9]+', '_', 'g'), '^_+|_+$', '', 'g'), '^([0-9])', 'f_\1'), ''), 'field'), 40) AS key
    FROM contact_custom_fields x JOIN contacts c ON c.id = x.contact_id;
  INSERT INTO custom_field_definitions (company_id, entity, key, label, type)
    SELECT DISTINCT ON (company_id, key) company_id, 'contact', key, left(trim(name), 60), 'text'
    FROM cf_extra ORDER BY company_id, key, id
  ON CONFLICT (company_id, entity, key) DO NOTHING;
  UPDATE contacts c SET custom_fields = v.vals || c.custom_fields
    FROM (
      SELECT e.contact_id, jsonb_object_agg(e.key, left(e.value, 1000) ORDER BY e.id) AS vals
      FROM cf_extra e
      JOIN custom_field_definitions d
        ON d.company_id = e.company_id AND d.entity = 'contact' AND d.key = e.key AND d.type = 'text'
      WHERE e.value <> ''
      GROUP BY e.contact_id
    ) v
    WHERE c.id = v.contact_id;
  DROP TABLE IF EXISTS cf_extra;
END
$fn$;
--> statement-breakpoint
SELECT custom_fields_from_extra_info();
