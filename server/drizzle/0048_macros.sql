-- #32.1 Macros: a named, ordered list of ticket actions (docs/productivity.md "Macros").
CREATE TABLE IF NOT EXISTS "macros" (
  "id" serial PRIMARY KEY,
  "company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE CASCADE,
  "user_id" integer REFERENCES "users"("id") ON DELETE SET NULL,
  "name" text NOT NULL,
  "visibility" text NOT NULL DEFAULT 'personal',
  "actions" jsonb NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "macros_company_idx" ON "macros" ("company_id", "visibility", "user_id");
