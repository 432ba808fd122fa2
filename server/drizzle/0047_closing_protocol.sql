-- #32.3 Closing reasons (a company list; the reason and sale value of a ticket's close) and #32.4 protocol
-- numbers (docs/productivity.md): every ticket gets a protocol unique in its company, from the company's
-- pattern (setting protocolPattern, default YYYYMMDD-000123), numbered by a per-company counter row the
-- BEFORE INSERT trigger takes inside the inserting transaction (atomic across processes; no gap-free promise).
CREATE TABLE IF NOT EXISTS "closing_reasons" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"name" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "closing_reasons_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "closing_reasons_company_name_uq" ON "closing_reasons" USING btree ("company_id",lower("name"));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "closing_reasons_company_idx" ON "closing_reasons" USING btree ("company_id","position");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "ticket_protocol_counters" (
	"company_id" integer PRIMARY KEY NOT NULL,
	"last" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "ticket_protocol_counters_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "closing_reason_id" integer;
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "sale_value" numeric(14, 2);
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "protocol" text DEFAULT '' NOT NULL;
--> statement-breakpoint
DO $$ BEGIN
  ALTER TABLE "tickets" ADD CONSTRAINT "tickets_closing_reason_id_closing_reasons_id_fk" FOREIGN KEY ("closing_reason_id") REFERENCES "public"."closing_reasons"("id") ON DELETE set null ON UPDATE no action;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
--> statement-breakpoint
-- The protocol of a sequence number at a time: the pattern's one run of digits is the zero-padded sequence
-- (wider when the number needs it), YYYY YY MM DD the date in the company's time zone (an unknown zone reads
-- as UTC). contracts' formatProtocol is the same rule.
CREATE OR REPLACE FUNCTION recado_format_protocol(pattern text, seq bigint, at timestamptz, tz text) RETURNS text LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  local timestamp;
  run text;
  pos integer;
  head text;
  tail text;
  num text;
BEGIN
  BEGIN
    local := at AT TIME ZONE coalesce(nullif(tz, ''), 'UTC');
  EXCEPTION WHEN others THEN
    local := at AT TIME ZONE 'UTC';
  END;
  run := substring(pattern from '[0-9]+');
  IF run IS NULL THEN
    -- A pattern stored without a sequence (the settings route refuses one): the sequence goes at the end.
    run := '000000';
    pattern := coalesce(pattern, '') || run;
  END IF;
  pos := strpos(pattern, run);
  head := left(pattern, pos - 1);
  tail := substr(pattern, pos + length(run));
  num := seq::text;
  IF length(num) < length(run) THEN
    num := lpad(num, length(run), '0');
  END IF;
  RETURN replace(replace(replace(replace(head, 'YYYY', to_char(local, 'YYYY')), 'YY', to_char(local, 'YY')), 'MM', to_char(local, 'MM')), 'DD', to_char(local, 'DD'))
    || num
    || replace(replace(replace(replace(tail, 'YYYY', to_char(local, 'YYYY')), 'YY', to_char(local, 'YY')), 'MM', to_char(local, 'MM')), 'DD', to_char(local, 'DD'));
END
$fn$;
--> statement-breakpoint
-- The company's next protocol. The counter row stays locked until the calling transaction ends, so two
-- processes never take the same number; a protocol already present (the pattern changed since) is skipped.
CREATE OR REPLACE FUNCTION tickets_next_protocol(company integer, at timestamptz) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  n bigint;
  pat text;
  tz text;
  candidate text;
BEGIN
  SELECT value INTO pat FROM settings WHERE company_id = company AND key = 'protocolPattern';
  SELECT value INTO tz FROM settings WHERE company_id = company AND key = 'timezone';
  LOOP
    INSERT INTO ticket_protocol_counters AS c (company_id, last) VALUES (company, 1)
      ON CONFLICT (company_id) DO UPDATE SET last = c.last + 1
      RETURNING c.last INTO n;
    candidate := recado_format_protocol(coalesce(nullif(pat, ''), 'YYYYMMDD-000123'), n,
      coalesce(at, now()), coalesce(tz, 'America/Sao_Paulo'));
    EXIT WHEN NOT EXISTS (SELECT 1 FROM tickets WHERE company_id = company AND protocol = candidate);
  END LOOP;
  RETURN candidate;
END
$fn$;
--> statement-breakpoint
-- Before the insert, so RETURNING and the creating code see the protocol. The inbound pipeline inserts with
-- ON CONFLICT (the contact's active ticket) DO UPDATE: where that ticket exists the row is left '' and takes no
-- number (the insert becomes that update); should it still be inserted (the ticket closed meanwhile), the
-- AFTER trigger below numbers it.
CREATE OR REPLACE FUNCTION tickets_assign_protocol() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.protocol IS NOT NULL AND NEW.protocol <> '' THEN
    RETURN NEW;
  END IF;
  NEW.protocol := '';
  IF NEW.status <> 'closed' AND NEW.whatsapp_id IS NOT NULL AND EXISTS (
    SELECT 1 FROM tickets WHERE contact_id = NEW.contact_id AND whatsapp_id = NEW.whatsapp_id AND status <> 'closed'
  ) THEN
    RETURN NEW;
  END IF;
  NEW.protocol := tickets_next_protocol(NEW.company_id, NEW.created_at);
  RETURN NEW;
END
$fn$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION tickets_assign_protocol_late() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE tickets SET protocol = tickets_next_protocol(NEW.company_id, NEW.created_at)
    WHERE id = NEW.id AND protocol = '';
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "tickets_assign_protocol" ON "tickets";
--> statement-breakpoint
CREATE TRIGGER "tickets_assign_protocol" BEFORE INSERT ON "tickets" FOR EACH ROW EXECUTE FUNCTION tickets_assign_protocol();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "tickets_assign_protocol_late" ON "tickets";
--> statement-breakpoint
CREATE TRIGGER "tickets_assign_protocol_late" AFTER INSERT ON "tickets" FOR EACH ROW WHEN (NEW.protocol = '') EXECUTE FUNCTION tickets_assign_protocol_late();
--> statement-breakpoint
-- Backfill: the existing tickets of each company numbered in creation order, dated by their creation.
WITH numbered AS (
  SELECT t.id, t.company_id, t.created_at,
    row_number() OVER (PARTITION BY t.company_id ORDER BY t.created_at, t.id) AS n
  FROM tickets t
  WHERE t.protocol = ''
)
UPDATE tickets SET protocol = recado_format_protocol(
  coalesce((SELECT nullif(s.value, '') FROM settings s WHERE s.company_id = numbered.company_id AND s.key = 'protocolPattern'), 'YYYYMMDD-000123'),
  numbered.n,
  numbered.created_at,
  coalesce((SELECT s.value FROM settings s WHERE s.company_id = numbered.company_id AND s.key = 'timezone'), 'America/Sao_Paulo'))
FROM numbered
WHERE tickets.id = numbered.id;
--> statement-breakpoint
INSERT INTO ticket_protocol_counters (company_id, last)
  SELECT company_id, count(*) FROM tickets GROUP BY company_id
ON CONFLICT (company_id) DO UPDATE SET last = GREATEST(ticket_protocol_counters.last, EXCLUDED.last);
--> statement-breakpoint
-- '' only for the moment between a raced insert and its AFTER trigger.
CREATE UNIQUE INDEX IF NOT EXISTS "tickets_company_protocol_uq" ON "tickets" USING btree ("company_id","protocol" text_pattern_ops) WHERE "protocol" <> '';
