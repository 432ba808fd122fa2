DROP INDEX "simulator_messages_undelivered_idx";--> statement-breakpoint
DROP INDEX "tickets_company_status_updated_idx";--> statement-breakpoint
CREATE INDEX "contacts_name_trgm_idx" ON "contacts" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "contacts_number_trgm_idx" ON "contacts" USING gin ("number" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "messages_body_trgm_idx" ON "messages" USING gin ("body" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "simulator_messages_pending_idx" ON "simulator_messages" USING btree ("whatsapp_id","id") WHERE not delivered and not from_me;--> statement-breakpoint
CREATE INDEX "tickets_company_status_recent_idx" ON "tickets" USING btree ("company_id","status","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "tickets_company_recent_idx" ON "tickets" USING btree ("company_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "tickets_user_status_recent_idx" ON "tickets" USING btree ("user_id","status","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);