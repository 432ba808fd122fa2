import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';
import { ListQuery } from './users.js';

/**
 * Quick messages (docs/team-tools.md): shortcodes typed after "/" in the message input.
 *
 * Who sees and changes what (enforced by the server):
 * - a personal entry (`geral` false) is seen and changed by its owner only;
 * - a company-wide entry (`geral` true, "allow view") is seen by every user of the company; its owner and
 *   the company's admins change it, and so does everybody else when `allowEdit` is on.
 * Inactive entries (`status` false) stay on the list screen but are not offered as suggestions.
 */
export const QUICK_MESSAGE_SHORTCODE_MAX = 50;
export const QUICK_MESSAGE_MAX = 4000;

export const QuickMessageInput = z.object({
  shortcode: z
    .string()
    .trim()
    .transform((s) => s.replace(/^\/+/, ''))
    .pipe(z.string().min(1).max(QUICK_MESSAGE_SHORTCODE_MAX).regex(/^\S+$/, 'no spaces')),
  message: z.string().trim().min(1).max(QUICK_MESSAGE_MAX),
  geral: z.boolean().default(false),
  allowEdit: z.boolean().default(false),
  status: z.boolean().default(true),
});
export type QuickMessageInput = z.input<typeof QuickMessageInput>;
export type QuickMessageInputParsed = z.infer<typeof QuickMessageInput>;

export const QuickMessageUpdate = z.object({
  shortcode: QuickMessageInput.shape.shortcode.optional(),
  message: QuickMessageInput.shape.message.optional(),
  geral: z.boolean().optional(),
  allowEdit: z.boolean().optional(),
  status: z.boolean().optional(),
});
export type QuickMessageUpdate = z.infer<typeof QuickMessageUpdate>;

/** GET /quick-messages: searchParam (shortcode or text), pageNumber; userId narrows to one owner's entries. */
export const QuickMessageListQuery = ListQuery.extend({
  userId: z.coerce.number().int().positive().max(2147483647).optional(),
});
export type QuickMessageListQuery = z.infer<typeof QuickMessageListQuery>;

/** GET /quick-messages/list: every active entry the user may use (the message input's suggestions). */
export const QuickMessageSuggestQuery = z.object({
  companyId: z.coerce.number().int().positive().max(2147483647).optional(),
  userId: z.coerce.number().int().positive().max(2147483647).optional(),
});

export const QuickMessage = z
  .looseObject({
    id: z.number(),
    companyId: z.number(),
    userId: z.number().nullable(),
    shortcode: z.string(),
    message: z.string(),
    geral: z.boolean(),
    allowEdit: z.boolean(),
    status: z.boolean(),
    isMedia: z.boolean(),
    mediaName: z.string().nullable(),
    /** `/api/quick-messages/{id}/media` when there is an attachment (served with the bearer token). */
    mediaPath: z.string().nullable(),
    /** The owner's name, for the list screen. */
    user: z
      .looseObject({
        id: z.number(),
        name: z.string(),
      })
      .nullable(),
    /** Whether the signed-in user may change or delete it (computed per reader). */
    canEdit: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'QuickMessage' });
export type QuickMessage = Wire<typeof QuickMessage>;

export const QuickMessagePage = z
  .looseObject({
    records: z.array(QuickMessage),
    hasMore: z.boolean(),
  })
  .meta({ id: 'QuickMessagePage' });
export type QuickMessagePage = Wire<typeof QuickMessagePage>;

export type QuickMessageEvent =
  { action: 'create' | 'update'; record: QuickMessage } | { action: 'delete'; id: number };
