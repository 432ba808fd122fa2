import { z } from 'zod';
import { Timestamp, oneOf, type Wire } from './responses.js';

/**
 * Service levels (#30.5, docs/metrics.md "SLA"): a policy's targets for first response, next response and
 * resolution, counted in business hours or calendar time, applied by queue and priority.
 */
export const SLA_KINDS = ['first_response', 'next_response', 'resolution'] as const;
export type SlaKind = (typeof SLA_KINDS)[number];

/** Ticket priorities as the API names them (tickets.priority 0..3). */
export const SLA_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type SlaPriority = (typeof SLA_PRIORITIES)[number];

/** A clock is "at risk" (amber) once less than this share of its target is left (docs/metrics.md). */
export const SLA_AT_RISK_SHARE = 0.25;
/** The longest target a policy may set: one year of minutes. */
export const SLA_MAX_MINUTES = 525_600;

const MAX_ID = 2_147_483_647;
const Id = z.number().int().positive().max(MAX_ID);
/** A target in minutes: a whole number above zero, or null (no target of that kind). */
const Target = z.number().int().positive().max(SLA_MAX_MINUTES).nullable();

export const SlaPolicyInput = z.object({
  name: z.string().trim().min(2).max(100),
  firstResponseMinutes: Target.default(null),
  nextResponseMinutes: Target.default(null),
  resolutionMinutes: Target.default(null),
  /** Count only the open hours of the company's week (or the queue's, with scheduleType "queue"). */
  businessHours: z.boolean().default(false),
  /** The queues it applies to; empty: every queue. */
  queueIds: z.array(Id).max(200).default([]),
  /** The priorities it applies to; empty: every priority. */
  priorities: z.array(z.enum(SLA_PRIORITIES)).max(4).default([]),
});
export type SlaPolicyInput = z.input<typeof SlaPolicyInput>;

/** PUT /sla-policies/{id}: only what is sent changes. */
export const SlaPolicyUpdate = z.object({
  name: SlaPolicyInput.shape.name.optional(),
  firstResponseMinutes: Target.optional(),
  nextResponseMinutes: Target.optional(),
  resolutionMinutes: Target.optional(),
  businessHours: z.boolean().optional(),
  queueIds: z.array(Id).max(200).optional(),
  priorities: z.array(z.enum(SLA_PRIORITIES)).max(4).optional(),
});
export type SlaPolicyUpdate = z.infer<typeof SlaPolicyUpdate>;

export const SlaPolicy = z
  .looseObject({
    id: z.number(),
    name: z.string(),
    firstResponseMinutes: z.number().nullable(),
    nextResponseMinutes: z.number().nullable(),
    resolutionMinutes: z.number().nullable(),
    businessHours: z.boolean(),
    queueIds: z.array(z.number()),
    priorities: z.array(oneOf(SLA_PRIORITIES)),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'SlaPolicy' });
export type SlaPolicy = Wire<typeof SlaPolicy>;

/** A ticket's service level (ticket view field `sla`). */
export const TicketSla = z
  .looseObject({
    firstResponseDueAt: Timestamp.nullable(),
    nextResponseDueAt: Timestamp.nullable(),
    resolutionDueAt: Timestamp.nullable(),
    /** Kinds breached on this ticket (once breached, a kind stays here). */
    breached: z.array(oneOf(SLA_KINDS)),
    /** When the running clock with the nearest due time turns amber (less than 25% of its target left). */
    atRiskAt: Timestamp.nullable(),
  })
  .meta({ id: 'TicketSla' });
export type TicketSla = Wire<typeof TicketSla>;

/** GET /tickets?sla=…: tickets at risk (amber, not yet due) or breached (a breach recorded, or past due). */
export const SLA_FILTERS = ['at_risk', 'breached'] as const;

/** A stored breach (GET /sla-breaches, the top bar, the `slaBreach` socket event, webhook `sla.breached`). */
export const SlaBreach = z
  .looseObject({
    id: z.number(),
    ticketId: z.number(),
    kind: oneOf(SLA_KINDS),
    policyId: z.number().nullable(),
    dueAt: Timestamp,
    /** When it was recorded. */
    breachedAt: Timestamp,
    queueId: z.number().nullable(),
    userId: z.number().nullable(),
    contactName: z.string(),
  })
  .meta({ id: 'SlaBreach' });
export type SlaBreach = Wire<typeof SlaBreach>;

export const SlaBreachList = z.looseObject({ breaches: z.array(SlaBreach) }).meta({ id: 'SlaBreachList' });
export type SlaBreachList = Wire<typeof SlaBreachList>;

/** `company-{id}-slaBreach`, to the company's admins and supervisors. */
export type SlaBreachEvent = { action: 'create'; breach: SlaBreach };

/** Per kind: targets met and breached in the period, and the share met (null when none). */
export const SlaAchievementCell = z.looseObject({
  met: z.number(),
  breached: z.number(),
  percent: z.number().nullable(),
});
const cells = z.looseObject({
  first_response: SlaAchievementCell,
  next_response: SlaAchievementCell,
  resolution: SlaAchievementCell,
});

/** GET /dashboard/sla: SLA achievement per queue and per attendant over the period (docs/metrics.md). */
export const SlaAchievement = z
  .looseObject({
    total: cells,
    queues: z.array(z.looseObject({ queueId: z.number().nullable(), name: z.string(), kinds: cells })),
    users: z.array(z.looseObject({ userId: z.number().nullable(), name: z.string(), kinds: cells })),
  })
  .meta({ id: 'SlaAchievement' });
export type SlaAchievement = Wire<typeof SlaAchievement>;

/**
 * A ticket's SLA colour at `now` (docs/metrics.md "SLA"), exactly as GET /tickets?sla= filters: breached (a
 * breach recorded, or a running clock past its due time), at_risk (amber: past `atRiskAt`, not yet due), ok
 * (green), or null (no running clock and no breach).
 */
export function slaStatusOf(
  sla:
    | Pick<
        TicketSla,
        'firstResponseDueAt' | 'nextResponseDueAt' | 'resolutionDueAt' | 'breached' | 'atRiskAt'
      >
    | null
    | undefined,
  now: number,
): 'breached' | 'at_risk' | 'ok' | null {
  if (!sla) return null;
  const nearest = nearestDue(sla);
  if (sla.breached.length > 0 || (nearest !== null && nearest <= now)) return 'breached';
  if (nearest === null) return null;
  if (sla.atRiskAt && Date.parse(sla.atRiskAt) <= now) return 'at_risk';
  return 'ok';
}

/** The nearest due time of a ticket's running clocks (ms), or null. */
export function nearestDue(
  sla: Pick<TicketSla, 'firstResponseDueAt' | 'nextResponseDueAt' | 'resolutionDueAt'>,
): number | null {
  const dues = [sla.firstResponseDueAt, sla.nextResponseDueAt, sla.resolutionDueAt]
    .filter((d): d is string => typeof d === 'string')
    .map((d) => Date.parse(d));
  return dues.length ? Math.min(...dues) : null;
}
