-- #32.8 contact merge and #32.9 pinned tickets (docs/productivity.md).
-- A user's pinned tickets: the top of THEIR ticket lists (per user, not per company).
CREATE TABLE IF NOT EXISTS "ticket_pins" (
  "company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE CASCADE,
  "user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "ticket_id" integer NOT NULL REFERENCES "tickets"("id") ON DELETE CASCADE,
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  PRIMARY KEY ("user_id", "ticket_id")
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ticket_pins_ticket_idx" ON "ticket_pins" ("ticket_id");
--> statement-breakpoint
-- Duplicate suggestions by e-mail (case-blind): one company's contacts sharing an address.
CREATE INDEX IF NOT EXISTS "contacts_company_email_idx" ON "contacts" ("company_id", lower("email")) WHERE "email" <> '';
