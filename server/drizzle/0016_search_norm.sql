-- Accent- and case-blind search (docs/search.md). unaccent is a trusted contrib extension on PostgreSQL 13+
-- and bundled with PGlite. search_norm(text) = lower(unaccent(text)), declared IMMUTABLE so trigram indexes
-- can be built on it; it names the extension's schema and dictionary explicitly, so it gives the same
-- answer whatever the session's search_path (autovacuum, restores), as an index expression must.
CREATE EXTENSION IF NOT EXISTS unaccent;--> statement-breakpoint
DO $migration$
DECLARE
  ns text;
BEGIN
  SELECT quote_ident(n.nspname) INTO ns
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'unaccent';
  EXECUTE format(
    'CREATE OR REPLACE FUNCTION search_norm(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT '
    'AS %L',
    format('SELECT pg_catalog.lower(%s.unaccent(%L::regdictionary, $1))', ns, ns || '.unaccent'));
END
$migration$;--> statement-breakpoint
DROP INDEX "contacts_name_trgm_idx";--> statement-breakpoint
DROP INDEX "messages_body_trgm_idx";--> statement-breakpoint
CREATE INDEX "contacts_name_search_idx" ON "contacts" USING gin (search_norm("name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "messages_body_search_idx" ON "messages" USING gin (search_norm("body") gin_trgm_ops);