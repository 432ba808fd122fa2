-- #31 Whether a company has any SLA clock (sla-service clocksRunning): a company without policies and without
-- clocks skips the SLA listener's ticket read on every customer message and announcement. Tickets with a clock
-- are the few a company with policies has open or kept; the partial index answers "any?" from a page.
CREATE INDEX IF NOT EXISTS "tickets_company_sla_idx" ON "tickets" USING btree ("company_id") WHERE sla_state is not null;
