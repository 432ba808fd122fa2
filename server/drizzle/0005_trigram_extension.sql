-- Custom SQL migration file, put your code below! --
-- pg_trgm (a trusted contrib extension on PostgreSQL 13+; bundled with PGlite) indexes ILIKE '%x%' searches.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
