import type { Db } from '../../../db/client.js';
import type { SecretBox } from '../../../lib/crypto.js';
import type { AppModule } from '../../../modules/app-module.js';
import { findWebhookConnection } from '../cloud-api/cloud-api-routes.js';
import { metaWebhookRoutes } from './meta-routes.js';

/** The Messenger Platform's webhook (Instagram and Messenger, docs/channels.md): signed with the app secret. */
export const metaModule = (deps: {
  db: Db;
  box: SecretBox;
  /** Hands a payload to the connection's channel wherever its session runs and waits for it (channel-commands.ts). */
  deliver: (connectionId: number, payload: unknown) => Promise<void>;
}): AppModule => ({
  name: 'meta-messaging',
  openRoutes: [
    metaWebhookRoutes({
      box: deps.box,
      findConnection: findWebhookConnection(deps.db),
      deliver: deps.deliver,
    }),
  ],
});
