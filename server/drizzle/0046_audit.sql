-- #32.6 The audit log (docs/audit.md): an append-only record of admin actions per company; company_id null is
-- the platform's own log (the super user's changes to companies, plans, helps). No route updates or deletes
-- an entry: the trigger below refuses UPDATE always and DELETE unless the retention purge set
-- recado.audit_purge for its transaction, or the company itself is being deleted (its cascade).
-- actor_id has no foreign key on purpose: deleting a user must not rewrite history (actor_email stays).
CREATE TABLE IF NOT EXISTS "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer,
	"actor_id" integer,
	"actor_email" text,
	"action" text NOT NULL,
	"target_type" text,
	"target_id" text,
	"before" jsonb,
	"after" jsonb,
	"ip" text,
	"user_agent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_log_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_log_company_created_idx" ON "audit_log" USING btree ("company_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF coalesce(current_setting('recado.audit_purge', true), '') = 'on' THEN
      RETURN OLD;
    END IF;
    IF OLD.company_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM companies WHERE id = OLD.company_id) THEN
      RETURN OLD;
    END IF;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$fn$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "audit_log_append_only" ON "audit_log";
--> statement-breakpoint
CREATE TRIGGER "audit_log_append_only" BEFORE UPDATE OR DELETE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
