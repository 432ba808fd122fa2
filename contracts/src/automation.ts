import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';

/** The largest PostgreSQL `integer`: ids beyond it name no row. */
const MAX_ID = 2_147_483_647;
const Id = z.number().int().positive().max(MAX_ID);

/**
 * What an n8n / webhook integration may answer to a customer message (docs/automation.md "Acting from the
 * answer"): `{ "actions": [...] }`, run in order while the hook still has the ticket. Every id must be one of
 * the hook's company; an answer that does not fit is an automation failure (the ticket goes to people).
 */
export const HookAction = z.discriminatedUnion('type', [
  /** A text to the customer, sent from the ticket's connection as the automation's. */
  z.strictObject({ type: z.literal('reply'), text: z.string().trim().min(1).max(4096) }),
  /** To a queue (waits there for people, or that queue's automation) or to an attendant (open, theirs). */
  z
    .strictObject({ type: z.literal('transfer'), queueId: Id.optional(), userId: Id.optional() })
    .refine((a) => a.queueId !== undefined || a.userId !== undefined, {
      message: 'transfer needs queueId or userId',
    }),
  /** Adds one of the company's tags to the ticket. */
  z.strictObject({ type: z.literal('tag'), tagId: Id }),
  /** Closes the ticket. */
  z.strictObject({ type: z.literal('resolve') }),
  /** Ends the automation: the ticket waits in its queue for people. */
  z.strictObject({ type: z.literal('handoff') }),
]);
export type HookAction = z.infer<typeof HookAction>;

/** The answer's body: other keys are ignored (n8n's default answer has none of these). */
export const HookAnswer = z.looseObject({
  actions: z.array(HookAction).max(20).optional(),
});
export type HookAnswer = z.infer<typeof HookAnswer>;

/** An automation's state on a ticket (TicketView.automation): answering, or failed and handed to people. */
export const TicketAutomationState = z.looseObject({
  status: z.enum(['active', 'failed']),
  /** prompt | typebot | n8n | webhook | dialogflow */
  kind: z.string(),
  /** Why it failed (status codes, provider codes; never a key or a message text). */
  error: z.string().nullable(),
  at: Timestamp,
});
export type TicketAutomationState = Wire<typeof TicketAutomationState>;

/** Failures in a row of one automation before admins are alerted (once per incident). */
export const AUTOMATION_ALERT_THRESHOLD = 3;

/** An open incident: one automation failed AUTOMATION_ALERT_THRESHOLD times or more in a row. */
export const AutomationAlert = z
  .looseObject({
    source: z.enum(['prompt', 'integration']),
    sourceId: z.number(),
    kind: z.string(),
    name: z.string(),
    failures: z.number(),
    lastError: z.string(),
    since: Timestamp,
    lastFailureAt: Timestamp,
  })
  .meta({ id: 'AutomationAlert' });
export type AutomationAlert = Wire<typeof AutomationAlert>;

export const AutomationAlertList = z
  .looseObject({ alerts: z.array(AutomationAlert) })
  .meta({ id: 'AutomationAlertList' });
export type AutomationAlertList = Wire<typeof AutomationAlertList>;

/** `company-{id}-automationAlert`, to admins: an incident opened, or closed (the automation answered again). */
export type AutomationAlertEvent =
  | { action: 'open'; alert: AutomationAlert }
  | { action: 'close'; source: 'prompt' | 'integration'; sourceId: number };
