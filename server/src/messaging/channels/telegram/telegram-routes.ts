import { createHash, timingSafeEqual } from 'node:crypto';
import { JsonAnswer } from '@recado/contracts';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Db } from '../../../db/client.js';
import type { SecretBox } from '../../../lib/crypto.js';
import { AppError } from '../../../http/errors.js';
import { access } from '../../../http/access.js';
import type { AppModule } from '../../../modules/app-module.js';
import { findWebhookConnection } from '../cloud-api/cloud-api-routes.js';
import { openTelegramConfig, TelegramConfigError } from './telegram-config.js';

const MAX_ID = 2_147_483_647;

/** Equal in constant time (both hashed first: lengths never leak either). */
export const sameSecret = (given: string, expected: string) =>
  timingSafeEqual(
    createHash('sha256').update(given).digest(),
    createHash('sha256').update(expected).digest(),
  );

/** An update as Telegram posts it (documented only; the channel reads what it knows). */
const TelegramUpdate = z.looseObject({ update_id: z.number() }).meta({ id: 'TelegramUpdate' });

/**
 * Telegram's webhook for a connection: `POST /api/webhooks/telegram/{connectionId}` with the connection's
 * secret in `X-Telegram-Bot-Api-Secret-Token`. Wrong or missing: 401 and nothing stored. A verified update is
 * handed to the connection's channel wherever its session runs and answered 200 once stored; a failure
 * answers 500 and Telegram delivers again (the update's message id makes the redelivery a no-op).
 */
export const telegramModule = (deps: {
  db: Db;
  box: SecretBox;
  deliver: (whatsappId: number, payload: unknown) => Promise<void>;
}): AppModule => {
  const find = findWebhookConnection(deps.db);
  const routes: FastifyPluginAsync = async (app) => {
    app.post<{ Params: { connectionId: string }; Body: unknown }>(
      '/webhooks/telegram/:connectionId',
      {
        // A customer's text: never refused for its encoding (docs/security.md "Text input").
        config: { ...access.public, customerText: true },
        bodyLimit: 1024 * 1024,
        schema: { documentedBody: { 'application/json': TelegramUpdate }, response: { 200: JsonAnswer } },
      },
      async (req, reply) => {
        const raw = req.params.connectionId;
        const id = /^\d{1,10}$/.test(raw) ? Number(raw) : 0;
        const conn = id > 0 && id <= MAX_ID ? await find(id) : undefined;
        if (!conn || conn.channel !== 'telegram') throw new AppError('ERR_NO_WAPP_FOUND', 404);
        let secret: string | undefined;
        try {
          secret = openTelegramConfig(conn.channelConfig, deps.box).webhookSecret;
        } catch (err) {
          if (!(err instanceof TelegramConfigError)) throw err;
        }
        const header = req.headers['x-telegram-bot-api-secret-token'];
        if (!secret || typeof header !== 'string' || !sameSecret(header, secret))
          throw new AppError('ERR_NO_PERMISSION', 401, 'Invalid secret token');
        if (!req.body || typeof req.body !== 'object')
          throw new AppError('ERR_VALIDATION', 400, 'Invalid update');
        try {
          await deps.deliver(id, req.body);
        } catch (err) {
          req.log.error({ err, connectionId: id }, 'telegram webhook delivery failed');
          throw new AppError('ERR_INTERNAL_SERVER_ERROR', 500, 'Delivery failed');
        }
        return reply.status(200).send({ ok: true });
      },
    );
  };
  return { name: 'telegram', openRoutes: [routes] };
};
