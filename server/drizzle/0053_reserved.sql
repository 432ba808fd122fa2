-- #32 The event outbox (docs/events.md "The outbox"): the events that feed the record (timeline, webhooks,
-- audit) are written here in the change's own transaction (or at emit time), dispatched after the commit,
-- deleted once their durable consumers wrote; a recurring sweep re-dispatches what a crash left behind.
CREATE TABLE "event_outbox" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"company_id" integer REFERENCES "companies"("id") ON DELETE cascade,
	"event" text NOT NULL,
	"payload" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "event_outbox_created_idx" ON "event_outbox" USING btree ("created_at","seq");
--> statement-breakpoint
-- The consumers' idempotency keys: a re-dispatched event never writes its entries or deliveries twice.
ALTER TABLE "ticket_events" ADD COLUMN "outbox_id" uuid;
--> statement-breakpoint
ALTER TABLE "ticket_events" ADD COLUMN "outbox_part" smallint;
--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_events_outbox_uq" ON "ticket_events" USING btree ("outbox_id","outbox_part") WHERE "outbox_id" is not null;
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "outbox_id" uuid;
--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_outbox_uq" ON "webhook_deliveries" USING btree ("webhook_id","outbox_id","event") WHERE "outbox_id" is not null;
--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "outbox_id" uuid;
--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_outbox_uq" ON "audit_log" USING btree ("outbox_id") WHERE "outbox_id" is not null;
