-- #29.10: a data dir seeded before the demo's simulator offered a menu. The demo company's simulator
-- connection with no queues gets the demo's departments, so its first conversation gets the greeting and
-- the menu (runs once, like every migration: a later choice to leave it without queues is kept).
INSERT INTO "whatsapp_queues" ("whatsapp_id", "queue_id")
SELECT w."id", q."id"
FROM "whatsapps" w
JOIN "companies" c ON c."id" = w."company_id" AND c."name" = 'Empresa Demo' AND c."email" = 'admin@demo.local'
JOIN "queues" q ON q."company_id" = w."company_id"
WHERE w."channel" = 'simulator'
  AND w."name" = 'Simulador'
  AND btrim(w."greeting_message") <> ''
  AND NOT EXISTS (SELECT 1 FROM "whatsapp_queues" x WHERE x."whatsapp_id" = w."id")
ON CONFLICT DO NOTHING;
