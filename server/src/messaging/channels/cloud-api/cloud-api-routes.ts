import { FileAnswer, JsonAnswer } from '@recado/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodType } from 'zod';
import { eq } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { whatsapps } from '../../../db/schema/index.js';
import type { SecretBox } from '../../../lib/crypto.js';
import { AppError } from '../../../http/errors.js';
import { CloudConfigError, openCloudConfig } from './cloud-api-config.js';
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
export const cloudApiWebhookRoutes = (deps: CloudApiWebhookDeps): FastifyPluginAsync =>
  metaSignedWebhookRoutes({
    ...deps,
    path: '/webhooks/cloud-api/:whatsappId',
    label: 'cloud api',
    documentedBody: CloudApiWebhookPayload,
    open: (conn) =>
      conn.channel === 'cloud_api' ? openCloudConfig(conn.channelConfig, deps.box) : undefined,
  });

type WebhookConnection = NonNullable<Awaited<ReturnType<CloudApiWebhookDeps['findConnection']>>>;

/**
 * A webhook signed the way Meta signs them (the Cloud API's, and the Messenger Platform's in channels/meta):
 * `path` ends in the connection id parameter; `open` answers the connection's verify token and app secret,
 * undefined when the connection is not of this webhook's channel (404), or throws CloudConfigError when its
 * settings cannot be used (403 / 401). The POST is read raw (the signature is over the bytes), verified,
 * parsed, and handed to `deliver` before the 200: a failure answers 500 and Meta delivers again.
 */
export const metaSignedWebhookRoutes =
  (
    deps: Omit<CloudApiWebhookDeps, 'box'> & {
      path: `${string}/:${string}`;
      label: string;
      documentedBody: ZodType;
      open(conn: WebhookConnection): { verifyToken: string; appSecret: string } | undefined;
    },
  ): FastifyPluginAsync =>
  async (app) => {
    // Encapsulated: only these routes see JSON bodies as raw bytes, which the signature is computed over.
    app.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: 1024 * 1024 },
      (_req, body, done) => done(null, body),
    );
    const param = deps.path.slice(deps.path.lastIndexOf(':') + 1);

    async function connectionConfig(
      rawId: string,
    ): Promise<{ verifyToken: string; appSecret: string } | null> {
      const id = /^\d{1,10}$/.test(rawId) ? Number(rawId) : 0;
      const conn = id > 0 && id <= MAX_ID ? await deps.findConnection(id) : undefined;
      let config: { verifyToken: string; appSecret: string } | undefined;
      try {
        config = conn ? deps.open(conn) : undefined;
      } catch (err) {
        if (err instanceof CloudConfigError) return null;
        throw err;
      }
      if (!config) throw new AppError('ERR_NO_WAPP_FOUND', 404);
      return config;
    }

    app.get<{ Params: Record<string, string> }>(
      deps.path,
      { config: access.public, schema: { response: { 200: FileAnswer } } },
      async (req, reply) => {
        const config = await connectionConfig(req.params[param] ?? '');
        const challenge = config ? verifyChallenge(req.query, config.verifyToken) : null;
        if (challenge === null) throw new AppError('ERR_NO_PERMISSION', 403, 'Verification failed');
        return reply.type('text/plain; charset=utf-8').send(challenge);
      },
    );

    app.post<{ Params: Record<string, string>; Body: unknown }>(
      deps.path,
      {
        // A customer's text: never refused for its encoding (docs/security.md "Text input").
        config: { ...access.public, customerText: true },
        // Read raw (the signature is over the bytes) and parsed by the channel: documented, not validated here.
        schema: {
          documentedBody: { 'application/json': deps.documentedBody },
          response: { 200: JsonAnswer },
        },
      },
      async (req, reply) => {
        const connectionId = req.params[param] ?? '';
        const config = await connectionConfig(connectionId);
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
          await deps.deliver(Number(connectionId), payload);
        } catch (err) {
          // Not 200: Meta delivers again later (inbound ids make the redelivery a no-op).
          req.log.error({ err, connectionId }, `${deps.label} webhook delivery failed`);
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
