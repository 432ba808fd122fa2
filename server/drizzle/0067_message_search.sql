-- #32 Ticket search by message text (docs/search.md "Indexes"): the normalised text is stored in the row, so
-- the trigram index and its recheck read a value instead of calling search_norm() once per candidate
-- message (≈3 µs each, a few milliseconds on a thousand matches). A generated column: every write of
-- `body` (insert, edit) keeps it without application code. Adding it rewrites the table under an exclusive
-- lock, and the index is rebuilt on the column: ≈7 s + 9 s for 1,000,000 messages on the 2-core machine
-- under load 4 (docs/search.md "Migrating a big messages table (0067)": plan a maintenance window).
DROP INDEX IF EXISTS "messages_body_search_idx";--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "body_search" text GENERATED ALWAYS AS (search_norm("body")) STORED;--> statement-breakpoint
-- The ticket search asks how many messages match before choosing its plan (ticket-queries.ts
-- messageSearchTickets): a finer histogram on the stored text (1,000 buckets instead of 100) keeps the
-- estimate of a rare text (0.1% of messages) near the truth instead of 1% or 0.01% depending on the sample.
-- ANALYZE of messages samples 300,000 rows instead of 30,000 (≈3.5 s instead of 0.4 s per million rows).
ALTER TABLE "messages" ALTER COLUMN "body_search" SET STATISTICS 1000;--> statement-breakpoint
-- The searched GIN indexes keep a small pending list (64 kB instead of 4 MB): every search scans the whole
-- list of not-yet-merged entries, which on a written table (messages) or after a bulk update (contacts)
-- cost 10-20 ms per search; inserts still batch their entries, merged every 64 kB.
CREATE INDEX IF NOT EXISTS "messages_body_search_idx" ON "messages" USING gin ("body_search" gin_trgm_ops) WITH (gin_pending_list_limit = 64);--> statement-breakpoint
ALTER INDEX "contacts_name_search_idx" SET (gin_pending_list_limit = 64);--> statement-breakpoint
ALTER INDEX "contacts_number_trgm_idx" SET (gin_pending_list_limit = 64);--> statement-breakpoint
SELECT gin_clean_pending_list('contacts_name_search_idx'::regclass), gin_clean_pending_list('contacts_number_trgm_idx'::regclass);
