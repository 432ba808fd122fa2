CREATE TABLE "billing_payments" (
	"provider_payment_id" text PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"invoice_id" integer,
	"value" numeric(12, 2),
	"status" text NOT NULL,
	"due_before" date,
	"due_after" date,
	"plan_before" integer,
	"plan_after" integer,
	"trial_before" boolean,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "billing_payments" ADD CONSTRAINT "billing_payments_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "billing_payments" ADD CONSTRAINT "billing_payments_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "billing_payments_company_idx" ON "billing_payments" USING btree ("company_id");
--> statement-breakpoint
CREATE INDEX "billing_payments_invoice_idx" ON "billing_payments" USING btree ("invoice_id");
--> statement-breakpoint
-- Invoices paid before this table existed: their payment granted (what it moved is unknown; a refund takes
-- back one recurrence).
INSERT INTO "billing_payments" ("provider_payment_id", "company_id", "invoice_id", "value", "status")
SELECT "provider_payment_id", "company_id", "id", "value", 'granted' FROM "invoices"
WHERE "status" = 'paid' AND "provider_payment_id" IS NOT NULL
ON CONFLICT DO NOTHING;
