import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';
import { TicketView } from './tickets.js';
import { ChannelListFilter } from './connections.js';

/** The largest PostgreSQL `integer`: ids beyond it name no row. */
const MAX_ID = 2_147_483_647;
const Id = z.coerce.number().int().positive().max(MAX_ID);

/** GET /tags/ answers this many tags a page (hasMore from one extra row). */
export const TAG_PAGE_SIZE = 20;
/** GET /ticket/kanban answers at most this many active tickets, the most recently updated first. */
export const KANBAN_TICKET_LIMIT = 500;
/** A ticket carries at most this many tags (POST /tags/sync). */
export const MAX_TAGS_PER_TICKET = 50;
export const DEFAULT_TAG_COLOR = '#5C59A0';

/** A tag colour: #RRGGBB, stored upper-case. */
export const TagColor = z
  .string()
  .trim()
  .regex(/^#[0-9a-fA-F]{6}$/, 'color #RRGGBB')
  .transform((c) => c.toUpperCase());

/** The spec's kanban flag is 0 or 1; booleans are accepted too. */
export const KanbanFlag = z
  .union([z.literal(0), z.literal(1), z.boolean(), z.enum(['0', '1'])])
  .transform((v) => (v === true || v === 1 || v === '1' ? 1 : 0));

/** docs/team-tools.md: name required, at least 3 characters. */
export const TagInput = z.object({
  name: z.string().trim().min(3).max(50),
  color: TagColor.default(DEFAULT_TAG_COLOR),
  kanban: KanbanFlag.default(0),
});
export type TagInput = z.infer<typeof TagInput>;
/** PUT /tags/{id}: only what is sent changes. */
export const TagUpdate = z.object({
  name: TagInput.shape.name.optional(),
  color: TagColor.optional(),
  kanban: KanbanFlag.optional(),
});
export type TagUpdate = z.infer<typeof TagUpdate>;

/** GET /tags/ (and /tags): search (lower-cased) and 1-based page; companyId is accepted and ignored. */
export const TagListQuery = z.object({
  searchParam: z.string().trim().toLowerCase().max(100).optional().default(''),
  pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1),
  companyId: Id.optional(),
});
export type TagListQuery = z.infer<typeof TagListQuery>;

export const Tag = z
  .looseObject({
    id: z.number(),
    companyId: z.number(),
    name: z.string(),
    color: z.string(),
    /** 1 when the tag is a kanban lane. */
    kanban: z.union([z.literal(0), z.literal(1)]),
    userId: z.number().nullable(),
    /** How many tickets (any status) carry the tag. */
    ticketsCount: z.number(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Tag' });
export type Tag = Wire<typeof Tag>;

export type TagEvent = { action: 'create' | 'update'; tag: Tag } | { action: 'delete'; tagId: number };

/** POST /tags/sync: the ticket's whole tag set; tags as ids or as tag objects (the spec's client sends those). */
export const TagSyncInput = z.object({
  ticketId: Id,
  tags: z
    .array(
      z.union([Id, z.object({ id: Id }).passthrough()]).transform((v) => (typeof v === 'number' ? v : v.id)),
    )
    .max(MAX_TAGS_PER_TICKET)
    .transform((ids) => [...new Set(ids)]),
});
export type TagSyncInput = z.infer<typeof TagSyncInput>;

export const TicketTagParams = z.object({ ticketId: Id, tagId: Id });
export const TicketIdParam = z.object({ ticketId: Id });

/** JSON-encoded id arrays as the spec's client sends them (`queueIds=[1,2]`), or comma lists. */
const IdList = z
  .union([z.string(), z.array(z.coerce.number())])
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return undefined;
    if (Array.isArray(v)) {
      if (v.some((n) => !Number.isInteger(n) || n <= 0 || n > MAX_ID)) {
        ctx.addIssue({ code: 'custom', message: 'a list of ids' });
        return z.NEVER;
      }
      return v.slice(0, 500);
    }
    try {
      const parsed: unknown = v.trim().startsWith('[') ? JSON.parse(v) : v.split(',');
      if (!Array.isArray(parsed)) throw new Error('ids');
      const ids = parsed.map(Number);
      if (ids.some((n) => !Number.isInteger(n) || n <= 0 || n > MAX_ID)) throw new Error('ids');
      return ids.slice(0, 500);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'a list of ids' });
      return z.NEVER;
    }
  });

/** GET /ticket/kanban: showAll is honoured for admins only; others see their queues' tickets. */
export const KanbanQuery = z.object({
  queueIds: IdList,
  /** #34.4 Only tickets whose connection is of one of these channels. */
  channels: ChannelListFilter,
  showAll: z
    .union([z.boolean(), z.enum(['true', 'false'])])
    .optional()
    .transform((v) => v === true || v === 'true'),
});
export type KanbanQuery = z.infer<typeof KanbanQuery>;

/** GET /ticket/kanban: the active (open and pending) tickets the user may see, with their tags. */
export const KanbanTickets = z
  .looseObject({
    tickets: z.array(TicketView),
    hasMore: z.boolean(),
  })
  .meta({ id: 'KanbanTickets' });
export type KanbanTickets = Wire<typeof KanbanTickets>;

/**
 * The lane a ticket sits in: its kanban tag (the first lane in board order when an old ticket has more
 * than one), or null for the open lane of untagged tickets.
 */
export function kanbanLaneOf(
  ticket: Pick<TicketView, 'tags'>,
  lanes: readonly { id: number }[],
): number | null {
  const mine = new Set(ticket.tags.map((t) => t.id));
  return lanes.find((l) => mine.has(l.id))?.id ?? null;
}
