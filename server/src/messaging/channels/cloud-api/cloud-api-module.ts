import type { Db } from '../../../db/client.js';
import type { SecretBox } from '../../../lib/crypto.js';
import type { AppModule } from '../../../modules/app-module.js';
import type { Channel } from '../../channel.js';
import { cloudApiWebhookRoutes, findWebhookConnection } from './cloud-api-routes.js';

/** Meta's webhook (docs/cloud-api.md): signed with the app secret, no user token. */
export const cloudApiModule = (deps: {
  db: Db;
  box: SecretBox;
  /** The connection's channel when it runs in this process. */
  running: (whatsappId: number) => Channel | undefined;
  /** Hands a payload to the process that runs the connection and waits for it (channel-commands.ts). */
  forward: (whatsappId: number, payload: unknown) => Promise<void>;
}): AppModule => ({
  name: 'cloud-api',
  openRoutes: [
    cloudApiWebhookRoutes({
      box: deps.box,
      findConnection: findWebhookConnection(deps.db),
      // Processed before the 200: a failure answers 500 and Meta delivers again (the pipeline is idempotent).
      // Meta's calls reach whichever process the load balancer picks: one that does not run the connection
      // hands the payload to the one that does and answers when that one has stored it.
      deliver: async (id, payload) => {
        const channel = deps.running(id) as { handleWebhook?(p: unknown): Promise<unknown> } | undefined;
        if (channel?.handleWebhook) await channel.handleWebhook(payload);
        else await deps.forward(id, payload);
      },
    }),
  ],
});
