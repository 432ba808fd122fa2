import type { Db } from '../../../db/client.js';
import type { SecretBox } from '../../../lib/crypto.js';
import type { AppModule } from '../../../modules/app-module.js';
import { cloudApiWebhookRoutes, findWebhookConnection } from './cloud-api-routes.js';

/** Meta's webhook (docs/cloud-api.md): signed with the app secret, no user token. */
export const cloudApiModule = (deps: {
  db: Db;
  box: SecretBox;
  /**
   * Hands a payload to the connection's channel wherever its session runs and waits for it
   * (channel-commands.ts `webhook`): Meta's calls reach whichever process the load balancer picks.
   */
  deliver: (whatsappId: number, payload: unknown) => Promise<void>;
}): AppModule => ({
  name: 'cloud-api',
  openRoutes: [
    cloudApiWebhookRoutes({
      box: deps.box,
      findConnection: findWebhookConnection(deps.db),
      // Processed before the 200: a failure answers 500 and Meta delivers again (the pipeline is idempotent).
      deliver: deps.deliver,
    }),
  ],
});
