import type { FastifyPluginAsync } from 'fastify';
import type { SecretBox } from '../../../lib/crypto.js';
import { metaSignedWebhookRoutes, type CloudApiWebhookDeps } from '../cloud-api/cloud-api-routes.js';
import { isMetaChannel, openMetaConfig } from './meta-config.js';
import { MetaWebhookPayload } from './meta-webhook.js';

/**
 * Meta's Messenger Platform webhook for `instagram` and `messenger` connections, one URL per connection
 * (`/api/webhooks/meta/{connectionId}`): GET answers the hub.challenge handshake with the connection's verify
 * token, POST takes deliveries signed with its app secret (X-Hub-Signature-256), exactly as the Cloud API's.
 */
export const metaWebhookRoutes = (
  deps: { box: SecretBox } & Pick<CloudApiWebhookDeps, 'findConnection' | 'deliver'>,
): FastifyPluginAsync =>
  metaSignedWebhookRoutes({
    ...deps,
    path: '/webhooks/meta/:connectionId',
    label: 'meta',
    documentedBody: MetaWebhookPayload,
    open: (conn) =>
      isMetaChannel(conn.channel) ? openMetaConfig(conn.channel, conn.channelConfig, deps.box) : undefined,
  });
