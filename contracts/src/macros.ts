import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';
import { ListQuery } from './users.js';

/**
 * #32.1 Macros (docs/productivity.md "Macros"): a named, ordered list of actions run on one or several
 * tickets in one go. A personal macro is seen and run by its owner only; a company macro by everyone in the
 * company, and created or changed by admins. Each ticket's actions run in one transaction (all or none).
 */
export const MACRO_ACTION_TYPES = [
  'send_text',
  'send_quick_message',
  'add_tags',
  'remove_tags',
  'set_priority',
  'transfer',
  'add_note',
  'snooze',
  'resolve',
] as const;
export type MacroActionType = (typeof MACRO_ACTION_TYPES)[number];
export const MACRO_VISIBILITIES = ['personal', 'company'] as const;
export const MACRO_MAX_ACTIONS = 20;
/** Tickets one run may take. */
export const MACRO_MAX_TICKETS = 100;
export const MACRO_TEXT_MAX = 4000;
/** Placeholders a macro's texts may use (filled per ticket). */
export const MACRO_VARIABLES = [
  'name',
  'firstName',
  'number',
  'email',
  'protocol',
  'ticket.id',
  'user',
] as const;

const Id = z.number().int().positive().max(2147483647);
const Ids = z.array(Id).min(1).max(50);

export const MacroAction = z.discriminatedUnion('type', [
  z.object({ type: z.literal('send_text'), text: z.string().trim().min(1).max(MACRO_TEXT_MAX) }),
  z.object({ type: z.literal('send_quick_message'), quickMessageId: Id }),
  z.object({ type: z.literal('add_tags'), tagIds: Ids }),
  z.object({ type: z.literal('remove_tags'), tagIds: Ids }),
  z.object({ type: z.literal('set_priority'), priority: z.number().int().min(0).max(3) }),
  z
    .object({ type: z.literal('transfer'), queueId: Id.nullish(), userId: Id.nullish() })
    .refine((a) => a.queueId != null || a.userId != null, {
      message: 'queueId or userId',
      path: ['queueId'],
    }),
  z.object({ type: z.literal('add_note'), text: z.string().trim().min(1).max(MACRO_TEXT_MAX) }),
  z
    .object({
      type: z.literal('snooze'),
      /** Minutes from the run; or `until`, a moment. */
      minutes: z
        .number()
        .int()
        .min(1)
        .max(60 * 24 * 365)
        .optional(),
      until: z.iso.datetime({ offset: true }).optional(),
    })
    .refine((a) => (a.minutes === undefined) !== (a.until === undefined), {
      message: 'minutes or until',
      path: ['minutes'],
    }),
  z.object({
    type: z.literal('resolve'),
    closingReasonId: Id.nullish(),
    saleValue: z.number().min(0).max(1e12).nullish(),
  }),
]);
export type MacroAction = z.infer<typeof MacroAction>;

export const MacroInput = z.object({
  name: z.string().trim().min(1).max(100),
  visibility: z.enum(MACRO_VISIBILITIES).default('personal'),
  actions: z.array(MacroAction).min(1).max(MACRO_MAX_ACTIONS),
});
export type MacroInput = z.input<typeof MacroInput>;
export type MacroInputParsed = z.infer<typeof MacroInput>;

export const MacroUpdate = z.object({
  name: MacroInput.shape.name.optional(),
  visibility: z.enum(MACRO_VISIBILITIES).optional(),
  actions: MacroInput.shape.actions.optional(),
});
export type MacroUpdate = z.infer<typeof MacroUpdate>;

export const MacroListQuery = ListQuery;
export type MacroListQuery = z.infer<typeof MacroListQuery>;

export const Macro = z
  .looseObject({
    id: z.number(),
    companyId: z.number(),
    /** The owner (who created it). */
    userId: z.number().nullable(),
    name: z.string(),
    visibility: z.enum(MACRO_VISIBILITIES),
    actions: z.array(z.looseObject({ type: z.enum(MACRO_ACTION_TYPES) })),
    user: z.looseObject({ id: z.number(), name: z.string() }).nullable(),
    /** Whether the signed-in user may change or delete it. */
    canEdit: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Macro' });
export type Macro = Wire<typeof Macro>;

export const MacroPage = z
  .looseObject({ records: z.array(Macro), hasMore: z.boolean() })
  .meta({ id: 'MacroPage' });

export const MacroRunInput = z.object({
  ticketIds: z.array(Id).min(1).max(MACRO_MAX_TICKETS),
});
export type MacroRunInput = z.infer<typeof MacroRunInput>;

export const MacroRunResult = z
  .looseObject({
    results: z.array(
      z.looseObject({
        ticketId: z.number(),
        ok: z.boolean(),
        /** The failing action's position (0-based) and the error code. */
        error: z
          .looseObject({ code: z.string(), message: z.string().optional(), action: z.number().optional() })
          .optional(),
      }),
    ),
  })
  .meta({ id: 'MacroRunResult' });
export type MacroRunResult = Wire<typeof MacroRunResult>;

export type MacroEvent = { action: 'create' | 'update'; record: Macro } | { action: 'delete'; id: number };
