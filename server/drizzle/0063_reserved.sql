-- #34.1 Website chat widget (docs/channels.md "Website chat"): the visitors of a webchat connection and the
-- conversation as the widget shows it. A visitor's message is stored here first (undelivered), then handed
-- to the connection's channel (its sink, the inbound pipeline); the agent's replies are stored here by the
-- channel's sendText/sendMedia and pushed to the visitor's socket room.
CREATE TABLE IF NOT EXISTS "widget_visitors" (
  "id" text PRIMARY KEY NOT NULL,
  "company_id" integer NOT NULL REFERENCES "companies"("id") ON DELETE CASCADE,
  "whatsapp_id" integer NOT NULL REFERENCES "whatsapps"("id") ON DELETE CASCADE,
  "token_hash" text NOT NULL,
  "name" text DEFAULT '' NOT NULL,
  "email" text DEFAULT '' NOT NULL,
  "phone" text DEFAULT '' NOT NULL,
  "consent_at" timestamp with time zone,
  "offline" boolean DEFAULT false NOT NULL,
  "page_url" text DEFAULT '' NOT NULL,
  "language" text DEFAULT '' NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "widget_visitors_token_uq" ON "widget_visitors" ("token_hash");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "widget_visitors_whatsapp_idx" ON "widget_visitors" ("whatsapp_id");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "widget_messages" (
  "id" bigserial PRIMARY KEY NOT NULL,
  "visitor_id" text NOT NULL REFERENCES "widget_visitors"("id") ON DELETE CASCADE,
  "company_id" integer NOT NULL,
  "whatsapp_id" integer NOT NULL,
  "provider_id" text NOT NULL,
  "from_visitor" boolean NOT NULL,
  "body" text DEFAULT '' NOT NULL,
  "media" jsonb,
  "delivered" boolean DEFAULT false NOT NULL,
  "read_at" timestamp with time zone,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "widget_messages_provider_uq" ON "widget_messages" ("visitor_id", "provider_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "widget_messages_undelivered_idx" ON "widget_messages" ("whatsapp_id") WHERE "from_visitor" AND NOT "delivered";
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "widget_messages_visitor_idx" ON "widget_messages" ("visitor_id", "created_at");
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "whatsapps_webchat_public_id_uq" ON "whatsapps" (("channel_config"->>'publicId')) WHERE "channel" = 'webchat';
