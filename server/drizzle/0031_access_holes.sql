-- #28.7: a push subscription is scoped by user. An endpoint already known under another user (of this or
-- another company) is kept there and the caller gets a row of its own; it is never moved.
DROP INDEX IF EXISTS "push_subscriptions_endpoint_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "push_subscriptions_user_endpoint_idx" ON "push_subscriptions" USING btree ("user_id","endpoint");
