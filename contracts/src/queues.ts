import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';
import { DaySchedule, WEEKDAYS } from './companies.js';
import { TicketPriority } from './tickets.js';

/** The largest PostgreSQL `integer`: ids beyond it name no row. */
const MAX_ID = 2_147_483_647;
const Id = z.coerce.number().int().positive().max(MAX_ID);
const Message = z.string().max(4000);

/**
 * docs/product.md#constants: the 50 preset colours of the queue colour picker (Material hues red, pink, purple,
 * indigo, blue, teal, green, amber, deep orange and blue grey, shades 300, 500, 700, 800 and 900).
 */
export const QUEUE_COLORS = [
  '#E57373', '#F44336', '#D32F2F', '#C62828', '#B71C1C',
  '#F06292', '#E91E63', '#C2185B', '#AD1457', '#880E4F',
  '#BA68C8', '#9C27B0', '#7B1FA2', '#6A1B9A', '#4A148C',
  '#7986CB', '#3F51B5', '#303F9F', '#283593', '#1A237E',
  '#64B5F6', '#2196F3', '#1976D2', '#1565C0', '#0D47A1',
  '#4DB6AC', '#009688', '#00796B', '#00695C', '#004D40',
  '#81C784', '#4CAF50', '#388E3C', '#2E7D32', '#1B5E20',
  '#FFD54F', '#FFC107', '#FFA000', '#FF8F00', '#FF6F00',
  '#FF8A65', '#FF5722', '#E64A19', '#D84315', '#BF360C',
  '#90A4AE', '#607D8B', '#455A64', '#37474F', '#263238',
] as const; // prettier-ignore

/**
 * The first colour of the palette nobody uses yet (case does not matter), for a new queue or tag; when
 * every colour is taken, the palette starts over with the least used one.
 */
export function nextUnusedColor(used: readonly string[], palette: readonly string[] = QUEUE_COLORS): string {
  const count = new Map<string, number>();
  for (const c of used) count.set(c.toUpperCase(), (count.get(c.toUpperCase()) ?? 0) + 1);
  let best = palette[0]!;
  for (const c of palette) {
    const n = count.get(c.toUpperCase()) ?? 0;
    if (n === 0) return c;
    if (n < (count.get(best.toUpperCase()) ?? 0)) best = c;
  }
  return best;
}

/**
 * A queue colour: one of the palette or any #RRGGBB (docs/product.md#validation allows 3 to 9 characters). Stored upper-case,
 * so #aabbcc and #AABBCC are one colour for the per-company uniqueness rule.
 */
export const QueueColor = z
  .string()
  .trim()
  .min(3)
  .max(9)
  .regex(/^#[0-9a-fA-F]{6}$/, 'color #RRGGBB')
  .transform((c) => c.toUpperCase());

/** Portuguese weekday names of the default schedule; weekdayEn is what rules read. */
const WEEKDAY_NAMES: Record<(typeof WEEKDAYS)[number], string> = {
  monday: 'Segunda-feira',
  tuesday: 'Terça-feira',
  wednesday: 'Quarta-feira',
  thursday: 'Quinta-feira',
  friday: 'Sexta-feira',
  saturday: 'Sábado',
  sunday: 'Domingo',
};

/** docs/product.md#constants: Monday to Friday 08:00–18:00, Saturday 08:00–12:00, Sunday 00:00–00:00. */
export const DEFAULT_QUEUE_SCHEDULES: DaySchedule[] = WEEKDAYS.map((weekdayEn) => ({
  weekday: WEEKDAY_NAMES[weekdayEn],
  weekdayEn,
  startTime: weekdayEn === 'sunday' ? '00:00' : '08:00',
  endTime: weekdayEn === 'sunday' ? '00:00' : weekdayEn === 'saturday' ? '12:00' : '18:00',
}));

/** Seven days, each weekday once. */
export const QueueSchedules = z
  .array(DaySchedule)
  .length(7)
  .refine((days) => new Set(days.map((d) => d.weekdayEn)).size === 7, 'each weekday once');

/** #30 How a queue's waiting tickets reach attendants (docs/routing.md#assignment-policies). */
export const ASSIGNMENT_POLICIES = ['manual', 'round_robin', 'least_busy'] as const;
export type AssignmentPolicy = (typeof ASSIGNMENT_POLICIES)[number];

/** A capacity (open tickets per attendant): a whole number from 0; null: no limit from here. */
export const Capacity = z.number().int().min(0).max(1000).nullable();

export const QueueInput = z.object({
  name: z.string().trim().min(2).max(50),
  color: QueueColor,
  greetingMessage: Message.default(''),
  outOfHoursMessage: Message.default(''),
  completionMessage: Message.default(''),
  /** The position of the queue in the bot's menu. */
  orderQueue: z.coerce.number().int().min(0).max(9999).nullable().optional(),
  schedules: QueueSchedules.default(() => DEFAULT_QUEUE_SCHEDULES.map((d) => ({ ...d }))),
  /** Queue integration and AI prompt: their modules arrive later and will check these references. */
  integrationId: Id.nullable().optional(),
  promptId: Id.nullable().optional(),
  /** Routing (docs/routing.md): manual keeps today's behaviour (whoever clicks first). */
  assignmentPolicy: z.enum(ASSIGNMENT_POLICIES).default('manual'),
  /** Open tickets per attendant of this queue, over each user's maxTickets; null: the user's. */
  capacity: Capacity.optional(),
  /** Sent to a customer waiting in line; {{position}} and {{eta}} are filled in. Empty: none. */
  waitingMessage: Message.default(''),
  /** Told again when the ticket moved up this many places… */
  waitingMessageStep: z.number().int().min(1).max(1000).default(1),
  /** …and at most once every this many minutes. */
  waitingMessageInterval: z.number().int().min(0).max(1440).default(5),
});
export type QueueInput = z.infer<typeof QueueInput>;
/** PUT /queue/{id}: only what is sent changes (the server builds it with patchSchema). */
export type QueueUpdate = Partial<QueueInput>;

export const QueueListQuery = z.object({ companyId: Id.optional() });

export const Queue = z
  .looseObject({
    id: z.number(),
    companyId: z.number(),
    name: z.string(),
    color: z.string(),
    orderQueue: z.number().nullable(),
    greetingMessage: z.string(),
    outOfHoursMessage: z.string(),
    completionMessage: z.string(),
    schedules: z.array(DaySchedule),
    integrationId: z.number().nullable(),
    promptId: z.number().nullable(),
    assignmentPolicy: z.enum(ASSIGNMENT_POLICIES),
    capacity: z.number().nullable(),
    waitingMessage: z.string(),
    waitingMessageStep: z.number(),
    waitingMessageInterval: z.number(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Queue' });
export type Queue = Wire<typeof Queue>;

export type QueueEvent =
  { action: 'create' | 'update'; queue: Queue } | { action: 'delete'; queueId: number };

/** The position a customer types to choose an option ("1", "2", "a"...); numbers are accepted too. */
const OptionKey = z
  .union([z.string(), z.number().int().min(0).max(999999)])
  .transform((v) => String(v).trim())
  .pipe(z.string().min(1).max(10));

/** -1 or null is the root of the tree (docs/product.md#entities). */
const ParentId = z.coerce
  .number()
  .int()
  .min(-1)
  .max(MAX_ID)
  .refine((v) => v !== 0, 'parentId')
  .nullable()
  .optional();

export const QueueOptionInput = z.object({
  queueId: Id,
  parentId: ParentId,
  title: z.string().trim().min(1).max(100),
  message: Message.default(''),
  /** Left out: the next number among its siblings. */
  option: OptionKey.optional(),
  /** #30.6 Choosing it (a leaf) sets the ticket's priority; null or left out: the ticket keeps its own. */
  priority: TicketPriority.nullable().optional(),
});
export type QueueOptionInput = z.infer<typeof QueueOptionInput>;

/** PUT /queue-options/{id}: title, message and option change; an option keeps its queue and parent. */
export const QueueOptionUpdate = z
  .object({
    title: QueueOptionInput.shape.title,
    message: Message,
    option: OptionKey,
    priority: TicketPriority.nullable(),
  })
  .partial();
export type QueueOptionUpdate = z.infer<typeof QueueOptionUpdate>;

/** GET /queue-options: a queue's options (all of them without parentId; -1 = the roots). */
export const QueueOptionListQuery = z.object({
  queueId: Id.optional(),
  parentId: z.coerce.number().int().min(-1).max(MAX_ID).optional(),
});
export type QueueOptionListQuery = z.infer<typeof QueueOptionListQuery>;

export const QueueOption = z
  .looseObject({
    id: z.number(),
    queueId: z.number(),
    parentId: z.number().nullable(),
    title: z.string(),
    message: z.string(),
    option: z.string(),
    priority: TicketPriority.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'QueueOption' });
export type QueueOption = Wire<typeof QueueOption>;
