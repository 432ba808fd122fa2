import type { Db } from '../../db/client.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { Channel, ChannelKind } from '../channel.js';
import type { MediaStore } from '../media-store.js';
import type { ConnectionRef, SessionManagerDeps } from '../session-manager.js';
import { baileysChannel, type BaileysDeps } from './baileys/baileys-channel.js';
import { cloudApiChannel } from './cloud-api/cloud-api-channel.js';
import { telegramChannel } from './telegram/telegram-channel.js';
import { metaChannel } from './meta/meta-channel.js';
import { metaSentUpTo } from './meta/meta-reads.js';
import { webchatChannel, type WebchatDeps } from './webchat/webchat-channel.js';
import {
  deliveredMarker,
  simulatorChannel,
  simulatorWakeUps,
  type SimulatorDeps,
} from './simulator-channel.js';

/** The channel a connection's `channel` names (docs/messaging.md), built for the session manager. */
export function channelFactory(deps: {
  db: Db;
  media: MediaStore;
  box: SecretBox;
  log: NonNullable<BaileysDeps['log']>;
  allowPrivateUrls: boolean;
  /** CLOUD_API_GRAPH_URL (graph-client.ts). */
  operatorGraphUrl?: string;
  notifySimulator: SimulatorDeps['notify'];
  /** LISTEN, for the simulator's wake-ups (messages another process accepted). */
  listen?: Parameters<typeof simulatorWakeUps>[0];
  /** Tests: a scripted Baileys socket. */
  baileysSocket?: BaileysDeps['makeSocket'];
  /** #34 TELEGRAM_API_URL, and PUBLIC_URL (where Telegram's webhook reaches this install). */
  telegram?: { apiUrl: string; publicUrl: string };
  /** #34.1 The website chat's replies: to the visitor's socket room, and by e-mail after an offline form. */
  webchat?: Pick<WebchatDeps, 'mailer' | 'emit'>;
}): SessionManagerDeps['createChannel'] {
  // One delivered mark for all the simulator connections of the process (a statement a turn, not one each).
  const markDelivered = deliveredMarker(deps.db);
  const wakeUps = simulatorWakeUps(deps.listen, deps.log);
  return (kind: ChannelKind, ref: ConnectionRef, sink): Channel | undefined => {
    const ctx = { whatsappId: ref.id, companyId: ref.companyId, config: ref.channelConfig, sink };
    if (kind === 'simulator')
      return simulatorChannel(ctx, {
        db: deps.db,
        media: deps.media,
        notify: deps.notifySimulator,
        markDelivered,
        wakeUps,
      });
    if (kind === 'cloud_api')
      return cloudApiChannel({
        ...ctx,
        box: deps.box,
        allowPrivateUrls: deps.allowPrivateUrls,
        operatorGraphUrl: deps.operatorGraphUrl,
      });
    if (kind === 'instagram' || kind === 'messenger')
      return metaChannel({
        ...ctx,
        kind,
        box: deps.box,
        allowPrivateUrls: deps.allowPrivateUrls,
        operatorGraphUrl: deps.operatorGraphUrl,
        sentUpTo: metaSentUpTo(deps.db, ref, kind),
      });
    if (kind === 'telegram' && deps.telegram)
      return telegramChannel({ ...ctx, box: deps.box, ...deps.telegram });
    if (kind === 'baileys')
      return baileysChannel(ctx, {
        db: deps.db,
        box: deps.box,
        log: deps.log,
        ...(deps.baileysSocket ? { makeSocket: deps.baileysSocket } : {}),
      });
    if (kind === 'webchat' && deps.webchat)
      return webchatChannel(ctx, { db: deps.db, media: deps.media, log: deps.log, ...deps.webchat });
    return undefined;
  };
}
