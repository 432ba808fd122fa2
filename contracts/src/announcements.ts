import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';

/**
 * Platform announcements (docs/push.md): the super user writes them, every company's users read the
 * active ones in the top bar. Priority 1 high (red border), 2 medium (orange), 3 low (grey; the default).
 */
export const ANNOUNCEMENT_TITLE_MAX = 200;
export const ANNOUNCEMENT_TEXT_MAX = 5000;
/** The attachment's kinds (docs/push.md): .png, .jpg, .jpeg. */
export const ANNOUNCEMENT_MEDIA_EXTENSIONS = ['png', 'jpg', 'jpeg'] as const;

export const AnnouncementPriority = z.coerce.number().int().min(1).max(3);

export const AnnouncementInput = z.object({
  title: z.string().trim().min(1).max(ANNOUNCEMENT_TITLE_MAX),
  text: z.string().trim().min(1).max(ANNOUNCEMENT_TEXT_MAX),
  priority: AnnouncementPriority.default(3),
  status: z.boolean().default(true),
});
export type AnnouncementInput = z.input<typeof AnnouncementInput>;
export type AnnouncementInputParsed = z.infer<typeof AnnouncementInput>;

export const AnnouncementUpdate = z.object({
  title: AnnouncementInput.shape.title.optional(),
  text: AnnouncementInput.shape.text.optional(),
  priority: AnnouncementPriority.optional(),
  status: z.boolean().optional(),
});
export type AnnouncementUpdate = z.infer<typeof AnnouncementUpdate>;

export const Announcement = z
  .looseObject({
    id: z.number(),
    title: z.string(),
    text: z.string(),
    priority: z.number(),
    status: z.boolean(),
    mediaName: z.string().nullable(),
    /** `/api/announcements/{id}/media` when there is an attachment (served to signed-in users). */
    mediaPath: z.string().nullable(),
    /** Whether the signed-in user has opened it (the top bar's dot); events carry false. */
    seen: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Announcement' });
export type Announcement = Wire<typeof Announcement>;

export const AnnouncementPage = z
  .looseObject({
    records: z.array(Announcement),
    hasMore: z.boolean(),
  })
  .meta({ id: 'AnnouncementPage' });
export type AnnouncementPage = Wire<typeof AnnouncementPage>;

/** `company-{id}-announcement`, sent to every company's users. */
export type AnnouncementEvent =
  { action: 'create' | 'update'; record: Announcement } | { action: 'delete'; id: number };

/** The top bar's list: active announcements, by priority then newest, and how many this user has not opened. */
export const AnnouncementFeed = z
  .looseObject({
    records: z.array(Announcement),
    unseen: z.number(),
  })
  .meta({ id: 'AnnouncementFeed' });
export type AnnouncementFeed = Wire<typeof AnnouncementFeed>;

/** POST /announcements/seen: the announcements the user has now opened. */
export const AnnouncementSeenInput = z.object({
  ids: z.array(z.number().int().positive().max(2147483647)).max(500),
});

/** Web Push (docs/push.md): a browser's PushSubscription.toJSON(). */
export const PushSubscriptionInput = z.object({
  endpoint: z.string().trim().url().max(2000),
  keys: z.object({
    p256dh: z.string().trim().min(1).max(200),
    auth: z.string().trim().min(1).max(100),
  }),
});
export type PushSubscriptionInput = z.infer<typeof PushSubscriptionInput>;

export const PushUnsubscribeInput = z.object({ endpoint: z.string().trim().url().max(2000) });

/** What a push carries to the service worker; `url` is a path of the web client. */
export interface PushPayload {
  title: string;
  body: string;
  url: string;
  tag?: string;
}

/** GET /push/public-key: the VAPID key browsers subscribe with (null when Web Push is not configured). */
export const PushPublicKey = z
  .looseObject({ publicKey: z.string().nullable() })
  .meta({ id: 'PushPublicKey' });
/** Whether this browser's subscription is stored for the user (subscribe, status, unsubscribe). */
export const PushSubscriptionState = z
  .looseObject({ subscribed: z.boolean() })
  .meta({ id: 'PushSubscriptionState' });
