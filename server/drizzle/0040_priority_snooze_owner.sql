-- #30.6/#30.7/#30.4: ticket priority (0 low, 1 normal, 2 high, 3 urgent), snooze, and the contact's owner.
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "priority" smallint DEFAULT 1 NOT NULL;
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "snoozed_until" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "snooze_until_reply" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "snoozed_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN IF NOT EXISTS "snoozed_by" integer;
--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_snoozed_by_users_id_fk" FOREIGN KEY ("snoozed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
-- The lists read priority first (urgent on top), then the newest activity, in index order.
DROP INDEX IF EXISTS "tickets_company_status_recent_idx";
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "tickets_company_status_prio_recent_idx" ON "tickets" USING btree ("company_id","status","priority" DESC NULLS FIRST,"updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);
--> statement-breakpoint
DROP INDEX IF EXISTS "tickets_company_recent_idx";
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "tickets_company_prio_recent_idx" ON "tickets" USING btree ("company_id","priority" DESC NULLS FIRST,"updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);
--> statement-breakpoint
DROP INDEX IF EXISTS "tickets_user_status_recent_idx";
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "tickets_user_status_prio_recent_idx" ON "tickets" USING btree ("user_id","status","priority" DESC NULLS FIRST,"updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);
--> statement-breakpoint
-- The "Adiados" tab and the wake-up sweep: the few snoozed tickets of a company.
CREATE INDEX IF NOT EXISTS "tickets_company_snoozed_idx" ON "tickets" USING btree ("company_id","snoozed_at") WHERE "snoozed_at" is not null;
--> statement-breakpoint
ALTER TABLE "queue_options" ADD COLUMN IF NOT EXISTS "priority" smallint;
--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN IF NOT EXISTS "owner_id" integer;
--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contacts_company_owner_idx" ON "contacts" USING btree ("company_id","owner_id") WHERE "owner_id" is not null;
