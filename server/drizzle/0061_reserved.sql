-- #34 A contact's identities on channels without phone numbers (Telegram chat id, Instagram/Messenger scoped
-- id, web chat visitor id, e-mail): one contact per (company, kind, value), found or created atomically by the
-- inbound pipeline (docs/channels.md "Identities").
CREATE TABLE "contact_identities" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE cascade,
	"contact_id" integer NOT NULL REFERENCES "contacts"("id") ON DELETE cascade,
	"kind" text NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "contact_identities_company_kind_value_uq" ON "contact_identities" USING btree ("company_id","kind","value");
--> statement-breakpoint
CREATE INDEX "contact_identities_contact_idx" ON "contact_identities" USING btree ("contact_id");
