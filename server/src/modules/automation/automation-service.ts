import { and, asc, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import type { TicketView } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import {
  contacts,
  messages,
  settings,
  prompts,
  queueIntegrations,
  queues,
  ticketAutomations,
  ticketBotStates,
  ticketHistories,
  ticketNotes,
  tickets,
  whatsappQueues,
  whatsapps,
} from '../../db/schema/index.js';
import type { Clock } from '../../lib/clock.js';
import { executeRows } from '../../db/rows.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { MessageService } from '../messages/message-service.js';
import { ticketQueries } from '../tickets/ticket-queries.js';
import type { JobQueue } from '../../jobs/job-queue.js';
import { dialogflowClient } from './dialogflow-runtime.js';
import { hookRuntime } from './hook-runtime.js';
import { AutomationError, type IntegrationRuntime, type Outcome, type Reply } from './runtime.js';
import { tenantFetch } from './outbound-fetch.js';
import { MAX_UPLOAD_BYTES } from '../../http/uploads.js';
import type { OutboundFile } from '../messages/message-service.js';
import { typebotRuntime } from './typebot-runtime.js';
import {
  completePrompt,
  describeOpenAiError,
  openaiClient,
  transcribe,
  type ChatTurn,
} from './openai-prompt.js';

type TicketRow = typeof tickets.$inferSelect;
/** How long "this company has no automation" is remembered: a new prompt or integration applies within it. */
const IDLE_MEMORY_MS = 5_000;
type StateRow = typeof ticketAutomations.$inferSelect;
type MessageRow = typeof messages.$inferSelect;

export type AutomationKind = 'prompt' | 'typebot' | 'n8n' | 'webhook' | 'dialogflow';
export type AutomationEnd = 'handoff' | 'accepted' | 'transferred' | 'closed' | 'error';

/** Which automation a ticket is due for. */
interface Target {
  level: 'queue' | 'connection';
  queueId: number | null;
  promptId: number | null;
  integrationId: number | null;
  kind: AutomationKind;
}

export type { Outcome };
export { AutomationError };

export interface AutomationDeps {
  db: Db;
  box: SecretBox;
  media: MediaStore;
  messages: MessageService;
  emitTicket: (companyId: number, view: TicketView, previousStatus?: string) => void;
  clock: Clock;
  config: {
    openaiBaseUrl: string;
    allowPrivateUrls: boolean;
    dialogflowApiUrl: string;
    googleTokenUrl: string;
    publicUrl: string;
  };
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
  /** The durable job queue (n8n / webhook posts). */
  jobs: JobQueue;
  /** Tests shorten the OpenAI timeout. */
  openaiTimeoutMs?: number;
  /** Tests shorten the outbound timeouts of the integrations and the webhook retry delay. */
  integrationTimeoutMs?: number;
  hookRetryDelayMs?: number;
}

/**
 * The hand-off engine (docs/automation.md): a pending ticket nobody took that enters a queue with an AI
 * prompt or an integration — or is created on a connection that has one — is handed to it
 * (`useIntegration`, `promptId` / `integrationId`); each later customer message goes to it, one at a time,
 * until it hands the ticket to people, a person accepts or transfers it, or it fails (then people take it
 * and admins read why in a note on the ticket). State in ticket_automations: a restart continues.
 */
export function automationService(deps: AutomationDeps) {
  const { db, clock, log } = deps;

  /** "This company has no prompt and no integration", remembered for a few seconds (like the bot's precheck). */
  const idleCompanies = new Map<number, number>();
  async function companyHasAutomations(companyId: number): Promise<boolean> {
    const until = idleCompanies.get(companyId);
    if (until && until > Date.now()) return false;
    const [row] = await executeRows<{ any: boolean }>(
      db,
      sql`select (exists(select 1 from prompts where company_id = ${companyId})
        or exists(select 1 from queue_integrations where company_id = ${companyId})) as any`,
    );
    if (row?.any) return true;
    if (idleCompanies.size > 10_000) idleCompanies.clear();
    idleCompanies.set(companyId, Date.now() + IDLE_MEMORY_MS);
    return false;
  }

  // ---- which automation ------------------------------------------------------------------------------

  /** The queue's automation: its prompt (the queue's promptId, else a prompt made for it), else its integration. */
  async function queueTarget(companyId: number, queueId: number): Promise<Target | null> {
    const [q] = await db
      .select({ promptId: queues.promptId, integrationId: queues.integrationId })
      .from(queues)
      .where(and(eq(queues.id, queueId), eq(queues.companyId, companyId)));
    if (!q) return null;
    let promptId = q.promptId;
    if (promptId === null) {
      const [p] = await db
        .select({ id: prompts.id })
        .from(prompts)
        .where(and(eq(prompts.queueId, queueId), eq(prompts.companyId, companyId)))
        .orderBy(asc(prompts.id))
        .limit(1);
      promptId = p?.id ?? null;
    }
    if (promptId !== null) return { level: 'queue', queueId, promptId, integrationId: null, kind: 'prompt' };
    if (q.integrationId !== null) {
      const kind = await integrationKind(companyId, q.integrationId);
      if (kind) return { level: 'queue', queueId, promptId: null, integrationId: q.integrationId, kind };
    }
    return null;
  }

  async function integrationKind(companyId: number, id: number): Promise<AutomationKind | null> {
    const [i] = await db
      .select({ type: queueIntegrations.type })
      .from(queueIntegrations)
      .where(and(eq(queueIntegrations.id, id), eq(queueIntegrations.companyId, companyId)));
    const kind = (i?.type as AutomationKind | undefined) ?? null;
    // An unknown type takes no ticket: it waits for people as before.
    return kind && runners[kind] ? kind : null;
  }

  async function connectionTarget(companyId: number, whatsappId: number): Promise<Target | null> {
    const [w] = await db
      .select({ promptId: whatsapps.promptId, integrationId: whatsapps.integrationId })
      .from(whatsapps)
      .where(and(eq(whatsapps.id, whatsappId), eq(whatsapps.companyId, companyId)));
    if (!w) return null;
    if (w.promptId !== null)
      return {
        level: 'connection',
        queueId: null,
        promptId: w.promptId,
        integrationId: null,
        kind: 'prompt',
      };
    if (w.integrationId !== null) {
      const kind = await integrationKind(companyId, w.integrationId);
      if (kind)
        return { level: 'connection', queueId: null, promptId: null, integrationId: w.integrationId, kind };
    }
    return null;
  }

  const stateOf = async (ticketId: number) =>
    (await db.select().from(ticketAutomations).where(eq(ticketAutomations.ticketId, ticketId)))[0];

  /** Waiting for anyone: pending, no attendant, not a group, no automation on it. */
  const free = (t: TicketRow) =>
    t.status === 'pending' && t.userId === null && !t.isGroup && !t.useIntegration;

  /**
   * The automation a free ticket is due for, if any: its queue's (unless that queue's automation already
   * had it), else — on a new ticket without a queue — the connection's, else the only queue of a
   * connection with one queue (the ticket goes there at once, as the bot would put it).
   */
  async function dueTarget(t: TicketRow, state: StateRow | undefined): Promise<Target | null> {
    if (t.queueId !== null) {
      if (state && state.queueId === t.queueId) return null;
      return queueTarget(t.companyId, t.queueId);
    }
    if (state || t.whatsappId === null) return null;
    const own = await connectionTarget(t.companyId, t.whatsappId);
    if (own) return own;
    const linked = await db
      .select({ queueId: whatsappQueues.queueId })
      .from(whatsappQueues)
      .where(eq(whatsappQueues.whatsappId, t.whatsappId));
    if (linked.length !== 1) return null;
    // The bot already works on this ticket: it leads the customer (and hands over through onQueued).
    const [bot] = await db
      .select({ id: ticketBotStates.ticketId })
      .from(ticketBotStates)
      .where(eq(ticketBotStates.ticketId, t.id));
    if (bot) return null;
    return queueTarget(t.companyId, linked[0]!.queueId);
  }

  async function announce(companyId: number, ticketId: number, previousStatus?: string) {
    const view = await ticketQueries.byId(db, companyId, ticketId);
    if (view) deps.emitTicket(companyId, view, previousStatus);
  }

  /** Hands a free ticket to the target (one conditional statement: a person acting first wins). */
  async function engage(t: TicketRow, target: Target): Promise<TicketRow | null> {
    const now = clock.now();
    const [updated] = await db
      .update(tickets)
      .set({
        useIntegration: true,
        promptId: target.promptId,
        integrationId: target.integrationId,
        chatbot: false,
        ...(target.queueId !== null ? { queueId: target.queueId } : {}),
        updatedAt: now,
      })
      .where(
        and(
          eq(tickets.id, t.id),
          eq(tickets.companyId, t.companyId),
          eq(tickets.status, 'pending'),
          isNull(tickets.userId),
          eq(tickets.useIntegration, false),
        ),
      )
      .returning();
    if (!updated) return null;
    if (target.queueId !== null && target.queueId !== t.queueId)
      await db.insert(ticketHistories).values({
        companyId: t.companyId,
        ticketId: t.id,
        action: 'transfer',
        userId: null,
        queueId: target.queueId,
        whatsappId: t.whatsappId,
        status: 'pending',
        data: { by: 'automation', from: { status: t.status, userId: null, queueId: t.queueId } },
      });
    const values = {
      companyId: t.companyId,
      kind: target.kind,
      level: target.level,
      queueId: target.queueId,
      promptId: target.promptId,
      integrationId: target.integrationId,
      sessionId: null,
      sessionAt: null,
      data: null,
      startedAt: now,
      endedAt: null,
      endReason: null,
      updatedAt: now,
    };
    await db
      .insert(ticketAutomations)
      .values({ ticketId: t.id, ...values })
      .onConflictDoUpdate({ target: ticketAutomations.ticketId, set: values });
    log.info({ ticketId: t.id, kind: target.kind, level: target.level }, 'automation took the ticket');
    await announce(t.companyId, t.id, t.status);
    return updated;
  }

  /** Ends the ticket's automation: its state is closed; `reset` also clears the ticket's flags. */
  async function finish(companyId: number, ticketId: number, reason: AutomationEnd, reset: boolean) {
    const now = clock.now();
    await db
      .update(ticketAutomations)
      .set({ endedAt: now, endReason: reason, updatedAt: now })
      .where(
        and(
          eq(ticketAutomations.ticketId, ticketId),
          eq(ticketAutomations.companyId, companyId),
          isNull(ticketAutomations.endedAt),
        ),
      );
    if (!reset) return;
    const [t] = await db
      .update(tickets)
      .set({ useIntegration: false, promptId: null, integrationId: null, updatedAt: now })
      .where(
        and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId), eq(tickets.useIntegration, true)),
      )
      .returning({ status: tickets.status });
    if (t) await announce(companyId, ticketId, t.status);
  }

  /** Admins read on the ticket why the automation stopped (a note without author); never the customer. */
  async function noteFailure(t: TicketRow, label: string, reason: string) {
    await db.insert(ticketNotes).values({
      companyId: t.companyId,
      ticketId: t.id,
      contactId: t.contactId,
      userId: null,
      note: `Automação (${label}) falhou: ${reason}. O ticket foi passado para atendimento humano.`,
    });
  }

  async function send(t: TicketRow, kind: AutomationKind, body: string) {
    if (!body.trim()) return;
    try {
      await deps.messages.deliver(t.companyId, t, { body, userId: null, data: { automation: kind } });
    } catch (err) {
      log.warn({ err, ticketId: t.id }, 'automation message not sent');
    }
  }

  /** A media answer's file, downloaded from the flow's (tenant) URL; null when it cannot be had. */
  async function fetchMedia(ticketId: number, url: string): Promise<OutboundFile | null> {
    try {
      const res = await tenantFetch({
        allowPrivate: deps.config.allowPrivateUrls,
        timeoutMs: 15_000,
        maxBytes: MAX_UPLOAD_BYTES,
      })(url);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const mimetype =
        (res.headers.get('content-type') ?? '').split(';')[0]!.trim() || 'application/octet-stream';
      const name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '').slice(-100);
      return { data: Buffer.from(await res.arrayBuffer()), mimetype, filename: name || 'arquivo' };
    } catch (err) {
      log.warn(
        { ticketId, err: err instanceof Error ? err.name : 'unknown' },
        'automation media not fetched',
      );
      return null;
    }
  }

  /** One answer to the customer: a text, or a media file (its link when the file cannot be fetched). */
  async function sendReply(t: TicketRow, kind: AutomationKind, reply: Reply) {
    if (typeof reply === 'string') return send(t, kind, reply);
    const file = await fetchMedia(t.id, reply.media.url);
    if (!file) return send(t, kind, reply.media.url);
    try {
      await deps.messages.deliver(t.companyId, t, {
        body: '',
        file,
        userId: null,
        data: { automation: kind },
      });
    } catch (err) {
      log.warn({ err, ticketId: t.id }, 'automation media not sent');
    }
  }

  // ---- AI prompts ------------------------------------------------------------------------------------

  /** The customer's side of a message for the model: the text, or a voice note's transcription. */
  const turnText = (m: MessageRow) => {
    const transcript = (m.data as { transcription?: unknown } | null)?.transcription;
    return typeof transcript === 'string' && transcript ? transcript : m.body;
  };

  async function runPrompt(t: TicketRow, message: MessageRow): Promise<Outcome> {
    const [p] = await db
      .select()
      .from(prompts)
      .where(and(eq(prompts.id, t.promptId ?? -1), eq(prompts.companyId, t.companyId)));
    if (!p) throw new AutomationError('prompt removed');
    const client = openaiClient(
      { apiKey: deps.box.open(p.apiKeySealed), baseUrl: p.baseUrl },
      { ...deps.config, timeoutMs: deps.openaiTimeoutMs },
    );
    if (message.mediaType === 'audio' && message.mediaUrl && !turnText(message).trim()) {
      const audio = await deps.media.read(message.mediaUrl);
      const text = await transcribe(client, audio, message.mediaName || 'audio.ogg');
      await db
        .update(messages)
        .set({ data: { ...(message.data ?? {}), transcription: text } })
        .where(eq(messages.id, message.id));
    }
    // The ticket's last maxMessages messages (the one being answered included), oldest first.
    const recent = await db
      .select()
      .from(messages)
      .where(
        and(eq(messages.ticketId, t.id), eq(messages.isDeleted, false), sql`${messages.id} <= ${message.id}`),
      )
      .orderBy(desc(messages.id))
      .limit(p.maxMessages);
    const conversation: ChatTurn[] = recent
      .reverse()
      .map((m) => ({ role: m.fromMe ? ('assistant' as const) : ('user' as const), content: turnText(m) }))
      .filter((m) => m.content.trim());
    log.info({ ticketId: t.id, promptId: p.id, turns: conversation.length }, 'openai chat completion');
    const answer = await completePrompt(
      client,
      {
        prompt: p.prompt,
        model: p.model,
        maxTokens: p.maxTokens,
        temperature: p.temperature,
        apiKey: '',
        baseUrl: p.baseUrl,
      },
      conversation,
    );
    return { replies: answer.reply ? [answer.reply] : [], handoff: answer.handoff };
  }

  // ---- queue integrations: one runtime file per kind (runtime.ts is their interface) ---------------

  const dialogflow = dialogflowClient({
    box: deps.box,
    clock,
    config: deps.config,
    log,
    timeoutMs: deps.integrationTimeoutMs,
  });
  const hooks = hookRuntime({
    db,
    jobs: deps.jobs,
    publicUrl: deps.config.publicUrl,
    allowPrivateUrls: deps.config.allowPrivateUrls,
    log,
    timeoutMs: deps.integrationTimeoutMs,
    retryDelayMs: deps.hookRetryDelayMs,
    onGiveUp: async (companyId, ticketId, label, reason) => {
      const [t] = await db
        .select()
        .from(tickets)
        .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId)));
      // Only while the hook still has the ticket: a person who took it meanwhile keeps it.
      if (!t || !t.useIntegration || t.integrationId === null) return;
      const [s] = await db
        .select({ kind: ticketAutomations.kind, endedAt: ticketAutomations.endedAt })
        .from(ticketAutomations)
        .where(eq(ticketAutomations.ticketId, ticketId));
      if (!s || s.endedAt || (s.kind !== 'n8n' && s.kind !== 'webhook')) return;
      log.warn({ ticketId, kind: s.kind, reason }, 'automation failed; the ticket goes to people');
      await noteFailure(t, label, reason);
      await finish(companyId, ticketId, 'error', true);
    },
  });
  const runtimes: IntegrationRuntime[] = [
    typebotRuntime({
      clock,
      allowPrivateUrls: deps.config.allowPrivateUrls,
      log,
      timeoutMs: deps.integrationTimeoutMs,
    }),
    hooks.n8n,
    hooks.webhook,
    dialogflow.runtime,
  ];

  /** Runs the ticket's integration for one message; the session it answers is stored (a restart continues). */
  async function runIntegration(
    runtime: IntegrationRuntime,
    t: TicketRow,
    message: MessageRow,
    state: StateRow,
  ): Promise<Outcome> {
    const [integration] = await db
      .select()
      .from(queueIntegrations)
      .where(
        and(eq(queueIntegrations.id, t.integrationId ?? -1), eq(queueIntegrations.companyId, t.companyId)),
      );
    if (!integration || integration.type !== runtime.kind) throw new AutomationError('integração removida');
    const [contact] = await db
      .select({ name: contacts.name, number: contacts.number })
      .from(contacts)
      .where(and(eq(contacts.id, t.contactId), eq(contacts.companyId, t.companyId)));
    const outcome = await runtime.run({
      ticket: t,
      message,
      state,
      integration,
      text: turnText(message),
      contact: contact ?? { name: '', number: '' },
    });
    if (outcome.session) {
      await db
        .update(ticketAutomations)
        .set({
          sessionId: outcome.session.id,
          sessionAt: outcome.session.id === null ? null : clock.now(),
          ...(outcome.session.data !== undefined ? { data: outcome.session.data } : {}),
          updatedAt: clock.now(),
        })
        .where(and(eq(ticketAutomations.ticketId, t.id), eq(ticketAutomations.companyId, t.companyId)));
    }
    return outcome;
  }

  const runners: Partial<
    Record<AutomationKind, (t: TicketRow, m: MessageRow, s: StateRow) => Promise<Outcome>>
  > = { prompt: runPrompt };
  for (const r of runtimes) runners[r.kind] = (t, m, s) => runIntegration(r, t, m, s);

  const labels: Record<AutomationKind, string> = {
    prompt: 'OpenAI',
    typebot: 'Typebot',
    n8n: 'n8n',
    webhook: 'webhook',
    dialogflow: 'Dialogflow',
  };

  /** One customer message of a ticket the automation has (claimed first: handled once). */
  async function handleMessage(t: TicketRow, message: MessageRow) {
    const now = clock.now();
    const [state] = await db
      .update(ticketAutomations)
      .set({ lastMessageId: message.id, updatedAt: now })
      .where(
        and(
          eq(ticketAutomations.ticketId, t.id),
          eq(ticketAutomations.companyId, t.companyId),
          isNull(ticketAutomations.endedAt),
          lt(ticketAutomations.lastMessageId, message.id),
        ),
      )
      .returning();
    if (!state) return;
    const kind = state.kind as AutomationKind;
    const run = runners[kind];
    if (!run) {
      // Not built for this kind yet: people take the ticket (docs/automation.md says which kinds run).
      await noteFailure(t, labels[kind] ?? kind, 'tipo de integração não suportado');
      return finish(t.companyId, t.id, 'error', true);
    }
    let outcome: Outcome;
    try {
      outcome = await run(t, message, state);
    } catch (err) {
      const reason = kind === 'prompt' ? describeOpenAiError(err) : errorText(err);
      log.warn({ ticketId: t.id, kind, reason }, 'automation failed; the ticket goes to people');
      await noteFailure(t, labels[kind], reason);
      return finish(t.companyId, t.id, 'error', true);
    }
    // A person may have taken the ticket while the provider answered: then nothing is sent.
    const [fresh] = await db.select().from(tickets).where(eq(tickets.id, t.id));
    if (!fresh || fresh.status !== 'pending' || fresh.userId !== null || !fresh.useIntegration) return;
    for (const [i, body] of outcome.replies.entries()) {
      if (i > 0 && outcome.delayMs)
        await new Promise((r) => setTimeout(r, Math.min(outcome.delayMs!, 60_000)));
      await sendReply(fresh, kind, body);
    }
    if (outcome.handoff) {
      log.info({ ticketId: t.id, kind }, 'automation handed the ticket to people');
      await finish(t.companyId, t.id, 'handoff', true);
    }
  }

  // ---- voice notes transcribed for attendants (company setting) -------------------------------------

  /** The key that transcribes a company's voice notes: its own (sealed setting), else a prompt's. */
  async function transcriptionClient(t: TicketRow) {
    const [own] = await db
      .select({ value: settings.value })
      .from(settings)
      .where(and(eq(settings.companyId, t.companyId), eq(settings.key, 'transcriptionApiKey')));
    if (own?.value)
      return openaiClient(
        { apiKey: deps.box.open(own.value), baseUrl: '' },
        { ...deps.config, timeoutMs: deps.openaiTimeoutMs },
      );
    // The ticket's prompt, else its queue's, else the company's first one.
    const candidates = await db
      .select({
        id: prompts.id,
        queueId: prompts.queueId,
        key: prompts.apiKeySealed,
        baseUrl: prompts.baseUrl,
      })
      .from(prompts)
      .where(eq(prompts.companyId, t.companyId))
      .orderBy(asc(prompts.id));
    const p =
      candidates.find((c) => c.id === t.promptId) ??
      candidates.find((c) => t.queueId !== null && c.queueId === t.queueId) ??
      candidates[0];
    if (!p) return null;
    return openaiClient(
      { apiKey: deps.box.open(p.key), baseUrl: p.baseUrl },
      { ...deps.config, timeoutMs: deps.openaiTimeoutMs },
    );
  }

  /**
   * A customer's voice note was stored: with the company's `transcribeAudio` setting on, it is transcribed
   * (after the automation's listener, which already transcribes the voice notes of prompt tickets) and the
   * text, kept in `data.transcription`, goes out as a message update for attendants.
   */
  async function onVoiceNote(ref: { id: number; companyId: number }, message: MessageRow) {
    if (message.fromMe || message.mediaType !== 'audio' || !message.mediaUrl) return;
    const [on] = await db
      .select({ value: settings.value })
      .from(settings)
      .where(and(eq(settings.companyId, ref.companyId), eq(settings.key, 'transcribeAudio')));
    if (on?.value !== 'enabled') return;
    const [m] = await db
      .select()
      .from(messages)
      .where(and(eq(messages.id, message.id), eq(messages.companyId, ref.companyId)));
    if (
      !m ||
      m.isDeleted ||
      typeof (m.data as { transcription?: unknown } | null)?.transcription === 'string'
    )
      return;
    const [t] = await db
      .select()
      .from(tickets)
      .where(and(eq(tickets.id, m.ticketId), eq(tickets.companyId, ref.companyId)));
    if (!t) return;
    let text: string;
    try {
      const client = await transcriptionClient(t);
      if (!client) {
        log.warn({ ticketId: t.id }, 'voice note not transcribed: the company has no OpenAI key');
        return;
      }
      const audio = await deps.media.read(m.mediaUrl!);
      log.info({ ticketId: t.id, messageId: m.id }, 'openai transcription');
      text = await transcribe(client, audio, m.mediaName || 'audio.ogg');
    } catch (err) {
      log.warn({ ticketId: t.id, reason: describeOpenAiError(err) }, 'voice note not transcribed');
      return;
    }
    await db
      .update(messages)
      .set({ data: { ...(m.data ?? {}), transcription: text } })
      .where(eq(messages.id, m.id));
    await deps.messages.announce(m.id);
  }

  return {
    onVoiceNote,

    /** Durable jobs of the engine (app.ts registers them). */
    jobs: hooks.jobs,

    /** Dialogflow detect intent with a test phrase (POST /queueIntegration/testSession). */
    testDialogflow: dialogflow.detectIntent,

    /**
     * A customer message was stored (`message.stored`, before the bot's listener): a free ticket due for
     * an automation is handed to it, and a ticket the automation has gets its answer.
     */
    async onStored(
      ref: { id: number; companyId: number },
      seen: { id: number; status: string; userId: number | null; isGroup: boolean; useIntegration: boolean },
      message: MessageRow,
    ) {
      if (message.fromMe || seen.isGroup || seen.status !== 'pending' || seen.userId !== null) return;
      // The common case costs no statement: a company without prompts or integrations (remembered a moment).
      if (!seen.useIntegration && !(await companyHasAutomations(ref.companyId))) return;
      const ticketId = seen.id;
      let [t] = await db
        .select()
        .from(tickets)
        .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, ref.companyId)));
      if (!t || t.isGroup || t.status !== 'pending' || t.userId !== null) return;
      if (!t.useIntegration) {
        const target = await dueTarget(t, await stateOf(t.id));
        if (!target) return;
        const engaged = await engage(t, target);
        if (!engaged) return;
        t = engaged;
      }
      await handleMessage(t, message);
    },

    /** The bot put a ticket in a queue (the customer chose it): that queue's automation takes it from here. */
    async onQueued(companyId: number, ticketId: number) {
      const [t] = await db
        .select()
        .from(tickets)
        .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId)));
      if (!t || !free(t) || t.queueId === null) return;
      const target = await dueTarget(t, await stateOf(t.id));
      if (!target) return;
      const engaged = await engage(t, target);
      if (!engaged) return;
      // The messages stored so far were the bot's: only later ones go to the automation.
      const [last] = await db
        .select({ id: messages.id })
        .from(messages)
        .where(eq(messages.ticketId, t.id))
        .orderBy(desc(messages.id))
        .limit(1);
      if (last)
        await db
          .update(ticketAutomations)
          .set({ lastMessageId: last.id })
          .where(eq(ticketAutomations.ticketId, t.id));
    },

    /**
     * A person changed the ticket (`ticket.changed`): accepting or transferring ends the automation (the
     * ticket service already reset its flags); a transfer into a queue with an automation hands it there.
     */
    async onTicketChanged(e: { companyId: number; before: TicketRow; after: TicketRow; action: string }) {
      const { companyId, after, action } = e;
      if (action === 'accept' || action === 'reopen' || (action === 'update' && after.userId !== null))
        return finish(companyId, after.id, 'accepted', false);
      if (action === 'close') return finish(companyId, after.id, 'closed', false);
      if (action !== 'transfer') return;
      await finish(companyId, after.id, 'transferred', false);
      if (!free(after) || after.queueId === null) return;
      const target = await queueTarget(companyId, after.queueId);
      if (target) await engage(after, target);
    },

    /** The automation state of a ticket of the company, or null (tests, diagnostics). */
    async state(companyId: number, ticketId: number): Promise<StateRow | null> {
      const [s] = await db
        .select()
        .from(ticketAutomations)
        .where(and(eq(ticketAutomations.ticketId, ticketId), eq(ticketAutomations.companyId, companyId)));
      return s ?? null;
    },
  };
}
export type AutomationService = ReturnType<typeof automationService>;

const errorText = (err: unknown) =>
  err instanceof AutomationError ? err.message : err instanceof Error ? err.name : 'unknown';
