import { FileAnswer, JsonAnswer } from '@recado/contracts';
import type { FastifyPluginAsync } from 'fastify';
import { eq } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { whatsapps } from '../../../db/schema/index.js';
import type { SecretBox } from '../../../lib/crypto.js';
import { AppError } from '../../../http/errors.js';
import { CloudConfigError, openCloudConfig, type CloudApiOpenConfig } from './cloud-api-config.js';
import { checkSignature, CloudApiWebhookPayload, verifyChallenge } from './cloud-api-webhook.js';
import { access } from '../../../http/access.js';

export interface CloudApiWebhookDeps {
  findConnection(
    whatsappId: number,
  ): Promise<{ companyId: number; channel: string; channelConfig: Record<string, unknown> } | undefined>;
  /**
   * Accepts one verified payload for the connection. It should only make the payload durable (enqueue) and
   * return: Meta waits for the answer, and only an answer other than 200 makes it deliver again.
   */
  deliver(whatsappId: number, payload: unknown): Promise<void>;
  box: SecretBox;
}

const MAX_ID = 2_147_483_647;

/**
 * Meta's webhook for Cloud API connections, one URL per connection (registered under /api by the caller):
 * GET answers the hub.challenge handshake, POST takes signed event deliveries.
 * No user authentication here: the app secret's signature is the authentication.
 */
export const cloudApiWebhookRoutes =
  (deps: CloudApiWebhookDeps): FastifyPluginAsync =>
  async (app) => {
    // Encapsulated: only these routes see JSON bodies as raw bytes, which the signature is computed over.
    app.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: 1024 * 1024 },
      (_req, body, done) => done(null, body),
    );

    async function connectionConfig(rawId: string): Promise<CloudApiOpenConfig | null> {
      const id = /^\d{1,10}$/.test(rawId) ? Number(rawId) : 0;
      const conn = id > 0 && id <= MAX_ID ? await deps.findConnection(id) : undefined;
      if (!conn || conn.channel !== 'cloud_api') throw new AppError('ERR_NO_WAPP_FOUND', 404);
      try {
        return openCloudConfig(conn.channelConfig, deps.box);
      } catch (err) {
        if (err instanceof CloudConfigError) return null;
        throw err;
      }
    }

    app.get<{ Params: { whatsappId: string } }>(
      '/webhooks/cloud-api/:whatsappId',
      { config: access.public, schema: { response: { 200: FileAnswer } } },
      async (req, reply) => {
        const config = await connectionConfig(req.params.whatsappId);
        const challenge = config ? verifyChallenge(req.query, config.verifyToken) : null;
        if (challenge === null) throw new AppError('ERR_NO_PERMISSION', 403, 'Verification failed');
        return reply.type('text/plain; charset=utf-8').send(challenge);
      },
    );

    app.post<{ Params: { whatsappId: string }; Body: unknown }>(
      '/webhooks/cloud-api/:whatsappId',
      {
        // A customer's text: never refused for its encoding (docs/security.md "Text input").
        config: { ...access.public, customerText: true },
        // Read raw (the signature is over the bytes) and parsed by parseWebhook: documented, not validated here.
        schema: {
          documentedBody: { 'application/json': CloudApiWebhookPayload },
          response: { 200: JsonAnswer },
        },
      },
      async (req, reply) => {
        const whatsappId = req.params.whatsappId;
        const config = await connectionConfig(whatsappId);
        const raw = Buffer.isBuffer(req.body) ? req.body : undefined;
        const header = req.headers['x-hub-signature-256'];
        if (
          !config ||
          !raw ||
          !checkSignature(raw, typeof header === 'string' ? header : undefined, config.appSecret)
        )
          throw new AppError('ERR_NO_PERMISSION', 401, 'Invalid signature');
        let payload: unknown;
        try {
          payload = JSON.parse(raw.toString('utf8'));
        } catch {
          throw new AppError('ERR_VALIDATION', 400, 'Invalid JSON');
        }
        try {
          await deps.deliver(Number(whatsappId), payload);
        } catch (err) {
          // Not 200: Meta delivers again later (inbound ids make the redelivery a no-op).
          req.log.error({ err, whatsappId }, 'cloud api webhook delivery failed');
          throw new AppError('ERR_INTERNAL_SERVER_ERROR', 500, 'Delivery failed');
        }
        return reply.status(200).send({ ok: true });
      },
    );
  };

/** The webhook's look-up: a connection's channel and sealed settings, by id (the company comes with it). */
export const findWebhookConnection = (db: Db) => async (id: number) =>
  (
    await db
      .select({
        companyId: whatsapps.companyId,
        channel: whatsapps.channel,
        channelConfig: whatsapps.channelConfig,
      })
      .from(whatsapps)
      .where(eq(whatsapps.id, id))
  )[0];
