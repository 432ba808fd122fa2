import { and, asc, desc, eq, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import {
  AUTOMATION_ALERT_THRESHOLD,
  type AutomationAlert,
  type AutomationAlertList,
  type HookAction,
  type TicketAutomationState,
  type TicketView,
} from '@recado/contracts';
import type { Events } from '../../realtime/events.js';
import { AppError } from '../../http/errors.js';
import { automationAlertTexts } from './automation-alert-texts.js';
import type { Db } from '../../db/client.js';
import {
  automationIncidents,
  contacts,
  messages,
  users,
  settings,
  prompts,
  queueIntegrations,
  queues,
  ticketAutomations,
  ticketBotStates,
  ticketHistories,
  ticketNotes,
  tickets,
  tags,
  whatsappQueues,
  whatsapps,
} from '../../db/schema/index.js';
import type { Clock } from '../../lib/clock.js';
import { executeRows } from '../../db/rows.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { MessageService } from '../messages/message-service.js';
import { mayFollowTicket, ticketQueries } from '../tickets/ticket-queries.js';
import type { Tenant } from '../../http/tenant.js';
import type { JobQueue } from '../../jobs/job-queue.js';
import { dialogflowClient } from './dialogflow-runtime.js';
import { hookRuntime, readHookAnswer, type HookExchange } from './hook-runtime.js';
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
import type { EmitTicket } from '../tickets/ticket-service.js';
import type { DomainBus, TicketChange } from '../../events/domain-events.js';

type TicketRow = typeof tickets.$inferSelect;
/** How long "this company has no automation" is remembered: a new prompt or integration applies within it. */
const IDLE_MEMORY_MS = 5_000;
type StateRow = typeof ticketAutomations.$inferSelect;
type MessageRow = typeof messages.$inferSelect;

export type AutomationKind = 'prompt' | 'typebot' | 'n8n' | 'webhook' | 'dialogflow';
export type AutomationEnd = 'handoff' | 'accepted' | 'transferred' | 'closed' | 'error';

/** Which automation a ticket is due for. */
interface Target {
  /** flow: a flow's node handed the ticket over (engageForFlow), and continues when the hold ends. */
  level: 'queue' | 'connection' | 'flow';
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
  emitTicket: EmitTicket;
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
  /** Admins' top bar hears about automation incidents (docs/automation.md "When automations fail"). */
  events?: Pick<Events, 'toAdmins'>;
  /** Web Push to users (push-service's notifyUsers): admins are told when an incident opens. */
  notifyUsers?: (
    companyId: number,
    userIds: number[],
    payload: { title: string; body: string; url: string; tag?: string },
  ) => Promise<void>;
  /** Adds a tag of the company to a ticket (a hook's `tag` action; the tag service's rules). */
  addTag?: (companyId: number, ticketId: number, tagId: number) => Promise<unknown>;
  /** `automation.ended` is told here when a hold ends (a flow's ai_prompt / typebot / n8n node continues). */
  bus?: Pick<DomainBus, 'emit'>;
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
    // The queue and its first prompt in one statement (every hand-over to a queue asks this).
    const [q] = await executeRows<{ prompt_id: number | null; integration_id: number | null }>(
      db,
      sql`select coalesce(q.prompt_id, (select p.id from prompts p where p.queue_id = q.id
          and p.company_id = ${companyId} order by p.id limit 1)) as prompt_id, q.integration_id
        from queues q where q.id = ${queueId} and q.company_id = ${companyId}`,
      'automation_queue_target',
    );
    if (!q) return null;
    const promptId = q.prompt_id;
    const integrationId = q.integration_id;
    if (promptId !== null) return { level: 'queue', queueId, promptId, integrationId: null, kind: 'prompt' };
    if (integrationId !== null) {
      const kind = await integrationKind(companyId, integrationId);
      if (kind) return { level: 'queue', queueId, promptId: null, integrationId, kind };
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

  async function announce(companyId: number, ticketId: number, change: TicketChange) {
    const view = await ticketQueries.byId(db, companyId, ticketId);
    if (view) deps.emitTicket(companyId, view, change);
  }

  /** Only the messages after those stored so far (the bot's, a flow's) go to the automation. */
  async function skipMessagesSoFar(ticketId: number) {
    const [last] = await db
      .select({ id: messages.id })
      .from(messages)
      .where(eq(messages.ticketId, ticketId))
      .orderBy(desc(messages.id))
      .limit(1);
    if (last)
      await db
        .update(ticketAutomations)
        .set({ lastMessageId: last.id })
        .where(eq(ticketAutomations.ticketId, ticketId));
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
        automation: stateLine('active', target.kind, null),
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
    await announce(t.companyId, t.id, {
      actor: target.kind === 'prompt' ? 'ai' : 'integration',
      action: 'transfer',
      before: t,
    });
    return updated;
  }

  /** Ends the ticket's automation: its state is closed; `reset` also clears the ticket's flags. */
  async function finish(
    companyId: number,
    ticketId: number,
    reason: AutomationEnd,
    reset: boolean,
    failed?: { kind: string; reason: string },
  ) {
    const now = clock.now();
    const [ended] = await db
      .update(ticketAutomations)
      .set({ endedAt: now, endReason: reason, updatedAt: now })
      .where(
        and(
          eq(ticketAutomations.ticketId, ticketId),
          eq(ticketAutomations.companyId, companyId),
          isNull(ticketAutomations.endedAt),
        ),
      )
      .returning({ kind: ticketAutomations.kind, level: ticketAutomations.level });
    // Told once the ticket is as the end leaves it (after the reset below).
    const told = () => {
      if (ended)
        void deps.bus?.emit('automation.ended', {
          companyId,
          ticketId,
          kind: ended.kind,
          level: ended.level,
          reason,
          ...(failed ? { error: failed.reason } : {}),
        });
    };
    if (!reset) return told();
    const [t] = await db
      .update(tickets)
      .set({
        useIntegration: false,
        promptId: null,
        integrationId: null,
        // The list and the chat show why people have it now ("falhou: …"), or nothing.
        automation: failed ? stateLine('failed', failed.kind, failed.reason) : null,
        updatedAt: now,
      })
      .where(
        and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId), eq(tickets.useIntegration, true)),
      )
      .returning({ status: tickets.status });
    if (t) await announce(companyId, ticketId, { actor: 'integration', action: 'update', before: {} });
    told();
  }

  /** The automation's state as the ticket carries it (TicketView.automation). */
  function stateLine(
    status: TicketAutomationState['status'],
    kind: string,
    error: string | null,
  ): TicketAutomationState {
    return { status, kind, error, at: clock.now().toISOString() };
  }

  // ---- incidents: failures in a row of one automation, admins alerted once per incident ---------------

  type Source = { source: 'prompt' | 'integration'; sourceId: number; kind: string };
  const sourceOf = (t: Pick<TicketRow, 'promptId' | 'integrationId'>, kind: string): Source | null =>
    kind === 'prompt'
      ? t.promptId !== null
        ? { source: 'prompt', sourceId: t.promptId, kind }
        : null
      : t.integrationId !== null
        ? { source: 'integration', sourceId: t.integrationId, kind }
        : null;
  const incidentKey = (companyId: number, s: Source) =>
    and(
      eq(automationIncidents.companyId, companyId),
      eq(automationIncidents.source, s.source),
      eq(automationIncidents.sourceId, s.sourceId),
    );

  async function sourceName(companyId: number, s: Source) {
    const table = s.source === 'prompt' ? prompts : queueIntegrations;
    const [row] = await db
      .select({ name: table.name })
      .from(table)
      .where(and(eq(table.id, s.sourceId), eq(table.companyId, companyId)));
    return row?.name ?? null;
  }

  /**
   * One more failure of an automation: at AUTOMATION_ALERT_THRESHOLD in a row an incident opens (one
   * conditional statement, so one process alone alerts) and admins hear it in the top bar and by push.
   */
  async function recordFailure(companyId: number, s: Source | null, reason: string) {
    if (!s) return;
    const now = clock.now();
    const [row] = await db
      .insert(automationIncidents)
      .values({ companyId, ...s, failures: 1, lastError: reason, lastFailureAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: [automationIncidents.companyId, automationIncidents.source, automationIncidents.sourceId],
        set: {
          failures: sql`${automationIncidents.failures} + 1`,
          kind: s.kind,
          lastError: reason,
          lastFailureAt: now,
          updatedAt: now,
        },
      })
      .returning();
    if (!row || row.failures < AUTOMATION_ALERT_THRESHOLD || row.alertedAt) return;
    const [opened] = await db
      .update(automationIncidents)
      .set({ alertedAt: now })
      .where(and(incidentKey(companyId, s), isNull(automationIncidents.alertedAt)))
      .returning();
    if (!opened) return;
    const name = (await sourceName(companyId, s)) ?? s.kind;
    const alert = toAlert(opened, name);
    log.warn({ companyId, ...s, failures: opened.failures }, 'automation incident: admins alerted');
    deps.events?.toAdmins(companyId, 'automationAlert', { action: 'open', alert });
    const admins = await db
      .select({ id: users.id, language: users.language })
      .from(users)
      .where(and(eq(users.companyId, companyId), eq(users.profile, 'admin')));
    const byLanguage = new Map<string, number[]>();
    for (const a of admins) byLanguage.set(a.language, [...(byLanguage.get(a.language) ?? []), a.id]);
    for (const [language, ids] of byLanguage) {
      const texts = automationAlertTexts(language);
      await deps
        .notifyUsers?.(companyId, ids, {
          title: `${texts.title}: ${name}`,
          body: texts.body(opened.failures, reason),
          url: s.source === 'prompt' ? '/prompts' : '/queue-integration',
          tag: `automation-${s.source}-${s.sourceId}`,
        })
        .catch((err: unknown) => log.warn({ err, companyId }, 'automation alert push not queued'));
    }
  }

  /** The automation answered: its run of failures ends, and an open incident closes. */
  async function recordSuccess(companyId: number, s: Source | null) {
    if (!s) return;
    const [gone] = await db
      .delete(automationIncidents)
      .where(incidentKey(companyId, s))
      .returning({ alertedAt: automationIncidents.alertedAt });
    if (gone?.alertedAt)
      deps.events?.toAdmins(companyId, 'automationAlert', {
        action: 'close',
        source: s.source,
        sourceId: s.sourceId,
      });
  }

  const toAlert = (r: typeof automationIncidents.$inferSelect, name: string): AutomationAlert => ({
    source: r.source as AutomationAlert['source'],
    sourceId: r.sourceId,
    kind: r.kind,
    name,
    failures: r.failures,
    lastError: r.lastError,
    since: (r.alertedAt ?? r.updatedAt).toISOString(),
    lastFailureAt: (r.lastFailureAt ?? r.updatedAt).toISOString(),
  });

  /**
   * The automation failed on a ticket it had: people take it now (the note says why, the ticket's line
   * says "falhou: …") and the failure counts towards an incident.
   */
  async function fail(t: TicketRow, kind: AutomationKind, reason: string) {
    log.warn({ ticketId: t.id, kind, reason }, 'automation failed; the ticket goes to people');
    const source = sourceOf(t, kind);
    await noteFailure(t, labels[kind] ?? kind, reason);
    await finish(t.companyId, t.id, 'error', true, { kind, reason });
    await recordFailure(t.companyId, source, reason);
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
    box: deps.box,
    clock,
    jobs: deps.jobs,
    publicUrl: deps.config.publicUrl,
    allowPrivateUrls: deps.config.allowPrivateUrls,
    log,
    timeoutMs: deps.integrationTimeoutMs,
    retryDelayMs: deps.hookRetryDelayMs,
    onFailure: async (companyId, x, reason) => {
      await hookFailed(companyId, x, x.attempt > 1 ? `${reason} (tentativa ${x.attempt})` : reason);
    },
    onAnswer: async (companyId, x, answer) => {
      const read = readHookAnswer(answer.body, answer.contentType);
      if ('error' in read) return hookFailed(companyId, x, read.error);
      const refused = await foreignRef(companyId, read.actions);
      if (refused) return hookFailed(companyId, x, refused);
      await recordSuccess(companyId, { source: 'integration', sourceId: x.integrationId, kind: x.kind });
      if (!read.actions.length) return;
      const t = await heldBy(companyId, x);
      if (!t) {
        log.info(
          { ticketId: x.ticketId, integrationId: x.integrationId },
          'hook actions ignored: not its ticket',
        );
        return;
      }
      await runActions(t, x.kind, read.actions);
    },
  });

  /** The ticket, while this hook still has it (a person who took it meanwhile keeps it). */
  async function heldBy(companyId: number, x: HookExchange): Promise<TicketRow | null> {
    const [t] = await db
      .select()
      .from(tickets)
      .where(and(eq(tickets.id, x.ticketId), eq(tickets.companyId, companyId)));
    if (!t || !t.useIntegration || t.integrationId !== x.integrationId) return null;
    if (t.status !== 'pending' || t.userId !== null) return null;
    return t;
  }

  /** A hook failed (a try, or an answer that cannot be used): people take the ticket if it still had it. */
  async function hookFailed(companyId: number, x: HookExchange, reason: string) {
    const t = await heldBy(companyId, x);
    if (t) return fail(t, x.kind, reason);
    log.warn({ ticketId: x.ticketId, kind: x.kind, reason }, 'automation hook failed');
    await recordFailure(
      companyId,
      { source: 'integration', sourceId: x.integrationId, kind: x.kind },
      reason,
    );
  }

  /** The first id of an action that is not the company's (a queue, user or tag of another company), or null. */
  async function foreignRef(companyId: number, actions: HookAction[]): Promise<string | null> {
    for (const a of actions) {
      if (a.type === 'transfer' && a.queueId !== undefined) {
        const [q] = await db
          .select({ id: queues.id })
          .from(queues)
          .where(and(eq(queues.id, a.queueId), eq(queues.companyId, companyId)));
        if (!q) return `fila ${a.queueId} não encontrada`;
      }
      if (a.type === 'transfer' && a.userId !== undefined) {
        const [u] = await db
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.id, a.userId), eq(users.companyId, companyId)));
        if (!u) return `usuário ${a.userId} não encontrado`;
      }
      if (a.type === 'tag') {
        const [g] = await db
          .select({ id: tags.id })
          .from(tags)
          .where(and(eq(tags.id, a.tagId), eq(tags.companyId, companyId)));
        if (!g) return `etiqueta ${a.tagId} não encontrada`;
      }
    }
    return null;
  }

  /**
   * Moves a ticket the automation had (a hook's transfer or resolve): one conditional statement while it
   * still has it, the automation's state ended, a history row without user, and the ticket announced.
   */
  async function moveTicket(
    t: TicketRow,
    kind: AutomationKind,
    to: { status: 'pending' | 'open' | 'closed'; queueId?: number; userId?: number | null },
  ): Promise<TicketRow | null> {
    const now = clock.now();
    const [moved] = await db
      .update(tickets)
      .set({
        status: to.status,
        ...(to.queueId !== undefined ? { queueId: to.queueId } : {}),
        ...(to.userId !== undefined ? { userId: to.userId } : {}),
        ...(to.status === 'open' ? { acceptedAt: sql`coalesce(${tickets.acceptedAt}, now())` } : {}),
        ...(to.status === 'closed' ? { closedAt: now, chatbot: false } : {}),
        useIntegration: false,
        promptId: null,
        integrationId: null,
        automation: null,
        updatedAt: now,
      })
      .where(and(eq(tickets.id, t.id), eq(tickets.companyId, t.companyId), eq(tickets.useIntegration, true)))
      .returning();
    if (!moved) return null;
    const action = to.status === 'closed' ? 'close' : 'transfer';
    await db.insert(ticketHistories).values({
      companyId: t.companyId,
      ticketId: t.id,
      action,
      userId: null,
      queueId: moved.queueId,
      whatsappId: moved.whatsappId,
      status: moved.status,
      data: { by: 'automation', kind, from: { status: t.status, userId: t.userId, queueId: t.queueId } },
    });
    await finish(t.companyId, t.id, to.status === 'closed' ? 'closed' : 'transferred', false);
    await announce(t.companyId, t.id, { actor: kind === 'prompt' ? 'ai' : 'integration', action, before: t });
    return moved;
  }

  /** A hook's actions, in order, on the ticket it has (docs/automation.md "Acting from the answer"). */
  async function runActions(t: TicketRow, kind: AutomationKind, actions: HookAction[]) {
    let current: TicketRow = t;
    for (const a of actions) {
      try {
        if (a.type === 'reply') await send(current, kind, a.text);
        else if (a.type === 'tag') await deps.addTag?.(t.companyId, t.id, a.tagId);
        else if (a.type === 'handoff') await finish(t.companyId, t.id, 'handoff', true);
        else if (a.type === 'resolve')
          current = (await moveTicket(current, kind, { status: 'closed' })) ?? current;
        else if (a.userId !== undefined)
          current =
            (await moveTicket(current, kind, { status: 'open', userId: a.userId, queueId: a.queueId })) ??
            current;
        else {
          const moved = await moveTicket(current, kind, {
            status: 'pending',
            queueId: a.queueId,
            userId: null,
          });
          if (moved) {
            current = moved;
            // Into a queue with an automation of its own: that one takes it from here.
            const target = await queueTarget(moved.companyId, a.queueId!);
            if (target && target.integrationId !== t.integrationId)
              current = (await engage(moved, target)) ?? moved;
          }
        }
      } catch (err) {
        log.warn(
          { ticketId: t.id, action: a.type, err: err instanceof Error ? err.message : 'unknown' },
          'automation action failed',
        );
      }
      // A later reply goes out on the ticket as it is now.
      const [fresh] = await db.select().from(tickets).where(eq(tickets.id, t.id));
      if (fresh) current = fresh;
    }
    log.info({ ticketId: t.id, kind, actions: actions.map((a) => a.type) }, 'automation actions run');
  }

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
      return fail(t, kind, 'tipo de integração não suportado');
    }
    let outcome: Outcome;
    try {
      outcome = await run(t, message, state);
    } catch (err) {
      return fail(t, kind, kind === 'prompt' ? describeOpenAiError(err) : errorText(err));
    }
    // n8n and webhook answer from their job (onAnswer); the others answered now.
    if (kind !== 'n8n' && kind !== 'webhook') await recordSuccess(t.companyId, sourceOf(t, kind));
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
     * A prompt or integration was created in this process: the company's "none" is forgotten at once, so
     * the next customer message reaches it (another process forgets within IDLE_MEMORY_MS).
     */
    sourcesChanged: (companyId: number) => void idleCompanies.delete(companyId),

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

    /**
     * A flow's ai_prompt / typebot / n8n node hands a free ticket to that prompt or integration of the company
     * (docs/flows.md "AI prompt, Typebot and n8n"): the same hold as a queue's, from the customer's next
     * message on, until it ends (`automation.ended`, level 'flow'). False when it cannot: the prompt or
     * integration is not the company's (or not of that kind), or the ticket is not free.
     */
    async engageForFlow(
      companyId: number,
      ticketId: number,
      ref: { kind: 'prompt'; promptId: number } | { kind: 'typebot' | 'n8n'; integrationId: number },
    ): Promise<boolean> {
      const [t] = await db
        .select()
        .from(tickets)
        .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId)));
      if (!t || !free(t)) return false;
      let target: Target;
      if (ref.kind === 'prompt') {
        const [p] = await db
          .select({ id: prompts.id })
          .from(prompts)
          .where(and(eq(prompts.id, ref.promptId), eq(prompts.companyId, companyId)));
        if (!p) return false;
        target = { level: 'flow', queueId: null, promptId: p.id, integrationId: null, kind: 'prompt' };
      } else {
        if ((await integrationKind(companyId, ref.integrationId)) !== ref.kind) return false;
        target = {
          level: 'flow',
          queueId: null,
          promptId: null,
          integrationId: ref.integrationId,
          kind: ref.kind,
        };
      }
      const engaged = await engage(t, target);
      if (!engaged) return false;
      // The messages so far were the flow's: only later ones go to the automation.
      await skipMessagesSoFar(t.id);
      return true;
    },

    /**
     * The bot put a ticket in a queue (the customer chose it): that queue's automation takes it from here.
     * `known`: the row as the caller's update just returned it (#31: not read again).
     */
    async onQueued(companyId: number, ticketId: number, known?: TicketRow) {
      const [t] =
        known?.id === ticketId && known.companyId === companyId
          ? [known]
          : await db
              .select()
              .from(tickets)
              .where(and(eq(tickets.id, ticketId), eq(tickets.companyId, companyId)));
      if (!t || !free(t) || t.queueId === null) return;
      const target = await dueTarget(t, await stateOf(t.id));
      if (!target) return;
      const engaged = await engage(t, target);
      if (!engaged) return;
      // The messages stored so far were the bot's: only later ones go to the automation.
      await skipMessagesSoFar(t.id);
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

    /**
     * POST /tickets/{id}/handoff: whoever drives the automation from outside (an n8n flow with an API token)
     * hands the ticket to people later; a ticket no automation has is answered as it is.
     */
    async handoff(caller: Tenant, ticketId: number): Promise<TicketView> {
      const { companyId } = caller;
      // The one visibility rule: a ticket the caller may not see is answered as absent, like every ticket route.
      if (!(await mayFollowTicket(db, caller, ticketId))) throw new AppError('ERR_NO_TICKET_FOUND', 404);
      await finish(companyId, ticketId, 'handoff', true);
      return (await ticketQueries.byId(db, companyId, ticketId))!;
    },

    /** GET /automation/alerts: the company's open incidents (automations that still exist). */
    async alerts(companyId: number): Promise<AutomationAlertList> {
      const rows = await db
        .select()
        .from(automationIncidents)
        .where(and(eq(automationIncidents.companyId, companyId), isNotNull(automationIncidents.alertedAt)))
        .orderBy(desc(automationIncidents.alertedAt));
      const alerts: AutomationAlert[] = [];
      for (const r of rows) {
        const s: Source = { source: r.source as Source['source'], sourceId: r.sourceId, kind: r.kind };
        const name = await sourceName(companyId, s);
        if (name !== null) alerts.push(toAlert(r, name));
      }
      return { alerts };
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
