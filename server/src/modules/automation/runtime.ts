import type { messages, queueIntegrations, ticketAutomations, tickets } from '../../db/schema/index.js';

export type TicketRow = typeof tickets.$inferSelect;
export type StateRow = typeof ticketAutomations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
export type IntegrationRow = typeof queueIntegrations.$inferSelect;

/**
 * A media answer (a Typebot image, video, audio or file bubble): the engine downloads it from the flow's URL
 * (a tenant URL: safeFetch, size and time limits) and sends it as a file; if that fails, the link as text.
 */
export interface MediaReply {
  media: { url: string; kind: 'image' | 'video' | 'audio' | 'file' };
}
export type Reply = string | MediaReply;

/** What an automation answered to one customer message. */
export interface Outcome {
  /** Texts (or media) sent to the customer, in order, from the connection (marked as the automation's). */
  replies: Reply[];
  /** Pause between two replies (Typebot's typebotDelayMessage). */
  delayMs?: number;
  /** Hand the ticket to people after the replies. */
  handoff?: boolean;
  /**
   * The provider's session after this exchange, stored in ticket_automations (a restart continues it):
   * `id` null forgets it. Absent: unchanged.
   */
  session?: { id: string | null; data?: Record<string, unknown> | null };
}

/** The context one runtime gets for one customer message (the ticket is the automation's, claimed). */
export interface RunInput {
  ticket: TicketRow;
  message: MessageRow;
  state: StateRow;
  /** The integration the ticket is handed to, read with the ticket's company (never another's). */
  integration: IntegrationRow;
  /** The customer's text: the body, or a voice note's transcription. */
  text: string;
  contact: { name: string; number: string };
}

/**
 * One kind of queue integration at run time (docs/automation.md). Each runtime file exports one; the engine
 * (automation-service.ts) claims the message, calls `run` outside any database transaction, then sends the
 * replies, stores the session and hands over when asked. A thrown error sends the ticket to people with a
 * note for admins: its text must carry no secret and no message body.
 */
export interface IntegrationRuntime {
  kind: 'typebot' | 'n8n' | 'webhook' | 'dialogflow';
  label: string;
  run(input: RunInput): Promise<Outcome>;
}

/** A failure whose message is safe to show admins (status codes, provider error codes; never keys or bodies). */
export class AutomationError extends Error {}

/** Logger shape the runtimes use (pino's). */
export interface RuntimeLog {
  info(o: object, m: string): void;
  warn(o: object, m: string): void;
}
