-- #35 Privacy (docs/privacy.md): the company's consent and retention policy, the consent answer on the contact,
-- and the marks retention leaves (a ticket anonymised, a message whose media was deleted).
CREATE TABLE "privacy_settings" (
	"company_id" integer PRIMARY KEY NOT NULL REFERENCES "companies"("id") ON DELETE cascade,
	"consent_required" boolean DEFAULT false NOT NULL,
	"consent_text" text DEFAULT '' NOT NULL,
	"opt_out_word" text DEFAULT 'SAIR' NOT NULL,
	"media_retention_days" integer,
	"ticket_retention_months" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- null: never asked; asked | granted | refused | opted_out
ALTER TABLE "contacts" ADD COLUMN "consent_status" text;
--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "consent_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "erased_at" timestamp with time zone;
--> statement-breakpoint
CREATE INDEX "contacts_company_opted_out_idx" ON "contacts" USING btree ("company_id","id") WHERE consent_status in ('refused', 'opted_out');
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "anonymized_at" timestamp with time zone;
--> statement-breakpoint
-- Retention's two look-ups, per company and oldest first: media still stored, closed tickets not yet anonymised.
CREATE INDEX "messages_company_media_created_idx" ON "messages" USING btree ("company_id","created_at") WHERE media_url is not null;
--> statement-breakpoint
CREATE INDEX "tickets_company_closed_not_anon_idx" ON "tickets" USING btree ("company_id","closed_at") WHERE closed_at is not null and anonymized_at is null;
--> statement-breakpoint
-- The audit log stays append-only, with one more exception: an erasure (docs/privacy.md) may replace the
-- before/after details of entries that held the erased person's data, in a transaction that set
-- recado.audit_redact; who, what, when and the target stay exactly as they were.
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
  IF TG_OP = 'UPDATE' AND coalesce(current_setting('recado.audit_redact', true), '') = 'on'
    AND NEW.id = OLD.id AND NEW.company_id IS NOT DISTINCT FROM OLD.company_id
    AND NEW.actor_id IS NOT DISTINCT FROM OLD.actor_id AND NEW.actor_email IS NOT DISTINCT FROM OLD.actor_email
    AND NEW.action = OLD.action AND NEW.target_type IS NOT DISTINCT FROM OLD.target_type
    AND NEW.target_id IS NOT DISTINCT FROM OLD.target_id AND NEW.ip IS NOT DISTINCT FROM OLD.ip
    AND NEW.user_agent IS NOT DISTINCT FROM OLD.user_agent AND NEW.created_at = OLD.created_at
    AND NEW.before IS NOT DISTINCT FROM '{"redacted":"erased"}'::jsonb
    AND NEW.after IS NOT DISTINCT FROM '{"redacted":"erased"}'::jsonb THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$fn$;
