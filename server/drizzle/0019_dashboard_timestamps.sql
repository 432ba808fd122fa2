ALTER TABLE "tickets" ADD COLUMN "accepted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "first_response_at" timestamp with time zone;--> statement-breakpoint
-- Existing tickets: the first history entry that left the ticket open (accept, transfer to a person, an
-- attendant's new open ticket), and the first message a person sent (docs/metrics.md).
UPDATE "tickets" t SET "accepted_at" = h.at FROM (
  SELECT ticket_id, min(created_at) AS at FROM ticket_histories WHERE status = 'open' GROUP BY ticket_id
) h WHERE h.ticket_id = t.id;--> statement-breakpoint
UPDATE "tickets" t SET "first_response_at" = m.at FROM (
  SELECT ticket_id, min(created_at) AS at FROM messages WHERE from_me AND user_id IS NOT NULL GROUP BY ticket_id
) m WHERE m.ticket_id = t.id;--> statement-breakpoint
CREATE INDEX "tickets_company_created_idx" ON "tickets" USING btree ("company_id","created_at","queue_id");--> statement-breakpoint
CREATE INDEX "tickets_company_closed_idx" ON "tickets" USING btree ("company_id","closed_at","status","user_id","accepted_at","created_at","queue_id","id") WHERE closed_at is not null;--> statement-breakpoint
CREATE INDEX "tickets_company_accepted_idx" ON "tickets" USING btree ("company_id","accepted_at","created_at","queue_id","id") WHERE accepted_at is not null;--> statement-breakpoint
CREATE INDEX "tickets_company_first_response_idx" ON "tickets" USING btree ("company_id","first_response_at","created_at","queue_id","id") WHERE first_response_at is not null;--> statement-breakpoint
CREATE INDEX "ticket_source_tracking_company_created_idx" ON "ticket_source_tracking" USING btree ("company_id","created_at");