CREATE TABLE "ticket_bot_states" (
	"ticket_id" integer PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"whatsapp_id" integer,
	"queue_id" integer,
	"option_id" integer,
	"invalid_answers" integer DEFAULT 0 NOT NULL,
	"answers" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"end_reason" text,
	"last_message_id" bigint DEFAULT 0 NOT NULL,
	"prompt_message_id" bigint DEFAULT 0 NOT NULL,
	"since_history_id" integer DEFAULT 0 NOT NULL,
	"out_of_hours_key" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ticket_bot_states" ADD CONSTRAINT "ticket_bot_states_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_bot_states" ADD CONSTRAINT "ticket_bot_states_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_bot_states" ADD CONSTRAINT "ticket_bot_states_whatsapp_id_whatsapps_id_fk" FOREIGN KEY ("whatsapp_id") REFERENCES "public"."whatsapps"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_bot_states" ADD CONSTRAINT "ticket_bot_states_queue_id_queues_id_fk" FOREIGN KEY ("queue_id") REFERENCES "public"."queues"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_bot_states" ADD CONSTRAINT "ticket_bot_states_option_id_queue_options_id_fk" FOREIGN KEY ("option_id") REFERENCES "public"."queue_options"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ticket_bot_states_company_idx" ON "ticket_bot_states" USING btree ("company_id");