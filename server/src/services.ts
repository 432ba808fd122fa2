import type { FastifyInstance } from 'fastify';
import { WhatsappInput } from '@recado/contracts';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { domainBus } from './events/domain-events.js';
import { outboxBus } from './events/outbox.js';
import { AUDIT_INTENT, recoverAuditIntent } from './modules/audit/audit-hook.js';
import type { JobQueue } from './jobs/job-queue.js';
import type { Clock } from './lib/clock.js';
import { secretBox } from './lib/crypto.js';
import { tokenService } from './lib/tokens.js';
import type { Mailer } from './mail/mailer.js';
import { webchatConfig } from './messaging/channels/webchat/webchat-config.js';
import { sealCloudConfig } from './messaging/channels/cloud-api/cloud-api-config.js';
import { sealTelegramConfig } from './messaging/channels/telegram/telegram-config.js';
import { isMetaChannel, sealMetaConfig } from './messaging/channels/meta/meta-config.js';
import { inboundPipeline, rebuildAcked, rebuildStored } from './messaging/inbound-pipeline.js';
import { mediaStore } from './messaging/media-store.js';
import type { SessionManager } from './messaging/session-manager.js';
import type { Events } from './realtime/events.js';
import { announcementService } from './modules/announcements/announcement-service.js';
import { apiTokenService } from './modules/api-tokens/api-token-service.js';
import { authService } from './modules/auth/auth-service.js';
import { loginThrottle, type AttemptCounter } from './modules/auth/login-throttle.js';
import type { SessionCache } from './modules/auth/session-cache.js';
import { automationService } from './modules/automation/automation-service.js';
import { billingService } from './modules/billing/billing-service.js';
import { botService } from './modules/bot/bot-service.js';
import { campaignSettingService } from './modules/campaign-settings/campaign-setting-service.js';
import { campaignDispatch } from './modules/campaigns/campaign-dispatch.js';
import { campaignService } from './modules/campaigns/campaign-service.js';
import { chatService } from './modules/chats/chat-service.js';
import { companyService } from './modules/companies/company-service.js';
import { contactListService } from './modules/contact-lists/contact-list-service.js';
import { contactService } from './modules/contacts/contact-service.js';
import { contactMergeService } from './modules/contact-merge/merge-service.js';
import { ticketPinService } from './modules/ticket-pins/pin-service.js';
import { reactionService } from './modules/reactions/reaction-service.js';
import { forwardService } from './modules/forward/forward-service.js';
import { customerMessages } from './modules/customer-messages/customer-messages.js';
import { dashboardService } from './modules/dashboard/dashboard-service.js';
import { liveService } from './modules/live/live-service.js';
import { presenceService } from './modules/presence/presence-service.js';
import { externalApiService } from './modules/external-api/external-api-service.js';
import { fileListService } from './modules/files/file-list-service.js';
import { flowRuntime } from './modules/flows/flow-runtime.js';
import { flowService } from './modules/flows/flow-service.js';
import { helpService } from './modules/helps/help-service.js';
import { messageTemplateService } from './modules/message-templates/message-template-service.js';
import { macroService } from './modules/macros/macro-service.js';
import { messageService, rebuildSent, type MessageService } from './modules/messages/message-service.js';
import { voiceNotes } from './modules/messages/voice-note.js';
import { planService } from './modules/plans/plan-service.js';
import { promptService } from './modules/prompts/prompt-service.js';
import { pushService } from './modules/push/push-service.js';
import { slaService } from './modules/sla/sla-service.js';
import { queueIntegrationService } from './modules/queue-integrations/queue-integration-service.js';
import { queueOptionService } from './modules/queues/queue-option-service.js';
import { queueService } from './modules/queues/queue-service.js';
import { routingService } from './modules/routing/routing-service.js';
import { quickMessageService } from './modules/quick-messages/quick-message-service.js';
import { ratingService } from './modules/ratings/rating-service.js';
import { scheduleService } from './modules/schedules/schedule-service.js';
import { settingService } from './modules/settings/setting-service.js';
import { simulatorService } from './modules/simulator/simulator-service.js';
import { tagService } from './modules/tags/tag-service.js';
import { customFieldService } from './modules/custom-fields/custom-field-service.js';
import { ticketTimerService } from './modules/ticket-timers/ticket-timer-service.js';
import { ticketService } from './modules/tickets/ticket-service.js';
import { snoozeService } from './modules/snooze/snooze-service.js';
import { userService } from './modules/users/user-service.js';
import { webhookService } from './modules/webhooks/webhook-service.js';
import { whatsappService } from './modules/whatsapps/whatsapp-service.js';

/**
 * Every module's service, built once per app on shared infrastructure (database, socket events, clock, job
 * queue, domain bus). Only the session manager is reached through a getter: it starts after the HTTP
 * server. What each module registers (routes, listeners, jobs, socket rooms) is composed in app.ts.
 */
export function makeServices(deps: {
  db: Database['db'];
  events: Events;
  mailer: Mailer;
  config: Config;
  sessions: () => SessionManager | undefined;
  log: FastifyInstance['log'];
  sessionCache: SessionCache;
  listen?: Database['listen'];
  outboundPollMs?: number;
  clock: Clock;
  jobs: JobQueue;
  loginCounter: AttemptCounter;
  loginLimit: number;
}) {
  const { db, events, mailer, config, sessions, log, clock, jobs } = deps;
  const tokens = tokenService(config.jwtSecret, config.accessTokenTtl);
  const media = mediaStore(config.dataDir);
  const box = secretBox(config.appSecret);
  const voice = voiceNotes({ ffmpegPath: config.ffmpegPath, log });
  const templates = messageTemplateService({
    db,
    box,
    allowPrivateUrls: config.allowPrivateUrls,
    operatorGraphUrl: config.cloudApiGraphUrl,
    log,
  });
  // Domain events (docs/events.md): the services below emit; app.ts subscribes each module's listeners.
  // #32 Through the outbox (events/outbox.ts): the events that feed the record survive a crash after their commit.
  const bus = outboxBus(domainBus(log), { db, log, crashAfterCommit: config.testCrashAfterCommit });
  jobs.register(bus.sweepJob);
  // An admin write's audit entry that a crash left unwritten (docs/audit.md "Durable").
  bus.recoverWith(AUDIT_INTENT, recoverAuditIntent(db));
  // An inbound message's record (timeline, webhooks) that a crash left behind: its row holds only ids.
  bus.rebuildWith('message.stored', rebuildStored(db));
  bus.rebuildWith('message.acked', rebuildAcked(db));
  bus.rebuildWith('message.sent', rebuildSent(db));
  const messages: MessageService = messageService({
    templates,
    clock,
    bus,
    db,
    events,
    media,
    sessions,
    voice,
    log,
    listen: deps.listen,
    outboundPollMs: deps.outboundPollMs,
    // Read at send time: billing is made below. Cached a few seconds per company (BillingService.sendBlocked).
    blocked: (companyId) => billing.sendBlocked(companyId),
  });
  const ratings = ratingService({ db, events, clock, jobs, messages, log });
  const tickets = ticketService({ db, events, log, bus, clock });
  const ticketTimers = ticketTimerService({
    db,
    clock,
    messages,
    emitTicket: tickets.emitTicket,
    log,
  });
  const campaignDispatcher = campaignDispatch({
    db,
    events,
    media,
    clock,
    jobs,
    sessions,
    log,
    bus,
  });
  const tags = tagService({ db, events, emitTicket: tickets.emitTicket, stageTicket: tickets.stageTicket });
  const customFields = customFieldService({ db });
  // #30 The routing engine (docs/routing.md): bus listeners and durable jobs, outside the ticket service.
  const routing = routingService({
    db,
    clock,
    jobs,
    events,
    messages,
    emitTicket: tickets.emitTicket,
    bus,
    log,
  });
  const automation = automationService({
    db,
    box,
    media,
    messages,
    emitTicket: tickets.emitTicket,
    clock,
    config,
    log,
    jobs,
    events,
    bus,
    // Made below; called only once the app runs.
    notifyUsers: (companyId, userIds, payload) => push.notifyUsers(companyId, userIds, payload),
    // A hook's tag action, under the tag service's rules (a kanban tag moves the card).
    addTag: (companyId, ticketId, tagId) =>
      tags.addToTicket(
        { userId: 0, companyId, profile: 'admin', super: false, sessionId: 'automation' },
        ticketId,
        tagId,
      ),
  });
  // Flows (docs/flows.md): the runtime comes before the bot, which asks it whether a flow took a message.
  const flowsRuntime = flowRuntime({
    db,
    clock,
    jobs,
    messages,
    emitTicket: tickets.emitTicket,
    bus,
    box,
    media,
    log,
    events,
    config: { allowPrivateUrls: config.allowPrivateUrls, openaiBaseUrl: config.openaiBaseUrl },
    // ai_prompt / typebot / n8n nodes hand the ticket to the automation engine's hold (flows/nodes).
    automation,
  });
  const whatsapps = whatsappService({
    db,
    events,
    sessions,
    box,
    // Cloud API secrets are sealed before they are stored; other channels keep no secrets in their config.
    sealConfig: (channel, cfg, previous) =>
      channel === 'cloud_api'
        ? sealCloudConfig(cfg, box, previous, { allowPrivateUrls: config.allowPrivateUrls })
        : channel === 'telegram'
          ? sealTelegramConfig(cfg, box, previous)
          : channel === 'webchat'
            ? webchatConfig(cfg, previous)
            : isMetaChannel(channel)
              ? sealMetaConfig(channel, cfg, box, previous, { allowPrivateUrls: config.allowPrivateUrls })
              : cfg,
  });
  const flows = flowService({
    db,
    clock,
    runtime: flowsRuntime,
    allowPrivateUrls: config.allowPrivateUrls,
    events,
    // Try-it runs on the company's simulator connection, made when it has none.
    simulatorConnection: async (t) =>
      (await flows.simulatorOf(t.companyId)) ??
      (await whatsapps.create(t, WhatsappInput.parse({ name: 'Simulator', channel: 'simulator' }))).id,
  });
  const bot = botService({
    db,
    messages,
    emitTicket: tickets.emitTicket,
    clock,
    jobs,
    log,
    onQueued: automation.onQueued,
    flowTook: flowsRuntime.took,
  });
  const automaticMessages = customerMessages({ db, messages, log });
  const push = pushService({ db, jobs, vapid: config.vapid, allowPrivateUrls: config.allowPrivateUrls, log });
  const schedules = scheduleService({
    db,
    events,
    media,
    clock,
    jobs,
    messages,
    templates,
    emitTicket: tickets.emitTicket,
    bus,
    log,
  });
  // Channel look-ups (number checks, pictures, address book) reach the session wherever it runs.
  const reach = messages.commands.reach;
  const contactLists = contactListService({ db, events, sessions, reach, log, jobs });
  const webhooks = webhookService({
    db,
    events,
    box,
    clock,
    jobs,
    log,
    allowPrivateUrls: config.allowPrivateUrls,
    media,
    appSecret: config.appSecret,
    publicUrl: config.publicUrl,
  });
  const billing = billingService({
    db,
    events,
    clock,
    box,
    jobs,
    asaasApiUrl: config.asaasApiUrl,
    webhookToken: config.asaasWebhookToken,
    log,
  });
  const contacts = contactService({ db, events, sessions, reach, log, bus });
  return {
    flows,
    flowsRuntime,
    billing,
    customerMessages: automaticMessages,
    bus,
    bot,
    automation,
    clock,
    jobs,
    ratings,
    ticketTimers,
    snooze: snoozeService({
      db,
      events,
      clock,
      jobs,
      bus,
      emitTicket: tickets.emitTicket,
      notifyUsers: (companyId, userIds, payload) => push.notifyUsers(companyId, userIds, payload),
      log,
    }),
    routing,
    messages,
    templates,
    tickets,
    tags,
    customFields,
    dashboard: dashboardService({ db, clock }),
    presence: presenceService({ db, events, bus, clock, jobs }),
    live: liveService({ db, events, clock, log }),
    apiTokens: apiTokenService({ db, events, clock }),
    quickMessages: quickMessageService({ db, events, media }),
    // #32.1 Macros: each run on the ticket services, rebuilt on each ticket's transaction.
    macros: macroService({
      db,
      events,
      bus,
      clock,
      jobs,
      media,
      templates,
      blocked: (companyId) => billing.isBlocked(companyId),
      log,
    }),
    schedules,
    media,
    pipeline: inboundPipeline({ db, events, media, log, bus, intercept: ratings }),
    box,
    whatsapps,
    simulator: simulatorService({ db, media, events, sessions, log }),
    tokens,
    auth: authService({
      db,
      tokens,
      events,
      mailer,
      appSecret: config.appSecret,
      refreshTtlSeconds: config.refreshTokenTtl,
      publicUrl: config.publicUrl,
      sessionCache: deps.sessionCache,
      throttle: loginThrottle({
        counter: deps.loginCounter,
        limit: deps.loginLimit,
        secret: config.appSecret,
      }),
    }),
    companies: companyService({ db, events, changed: (id) => billing.forgetSendCheck(id) }),
    plans: planService({ db }),
    users: userService({ db, events, bus }),
    settings: settingService({
      db,
      events,
      box,
      allowPrivateUrls: config.allowPrivateUrls,
      changed: (companyId, key) => key === 'timezone' && billing.forgetSendCheck(companyId),
    }),
    helps: helpService({ db }),
    contacts,
    // #32.8 and #32.9 (docs/productivity.md): contact merge, pinned tickets, forwarding.
    contactMerge: contactMergeService({ db, contacts, emitTicket: tickets.emitTicket }),
    ticketPins: ticketPinService({ db, events }),
    // #33.7 Reactions to messages, through the outbox.
    reactions: reactionService({ db, events, sessions, messages }),
    forward: forwardService({ db, media, messages, tickets }),
    queues: queueService({ db, events, bus }),
    queueOptions: queueOptionService({ db }),
    queueIntegrations: queueIntegrationService({
      db,
      events,
      box,
      allowPrivateUrls: config.allowPrivateUrls,
      testDialogflow: automation.testDialogflow,
      onCreated: automation.sourcesChanged,
    }),
    prompts: promptService({
      db,
      events,
      box,
      allowPrivateUrls: config.allowPrivateUrls,
      openaiBaseUrl: config.openaiBaseUrl,
      onCreated: automation.sourcesChanged,
    }),
    contactLists,
    fileLists: fileListService({ db, events, media }),
    campaignSettings: campaignSettingService({ db }),
    campaignDispatch: campaignDispatcher,
    campaigns: campaignService({ db, events, clock, media, dispatch: campaignDispatcher }),
    chats: chatService({ db, events, bus }),
    announcements: announcementService({ db, events, media }),
    push,
    webhooks,
    // #30.5 SLA clocks and breaches (docs/metrics.md "SLA").
    sla: slaService({
      db,
      events,
      clock,
      jobs,
      bus,
      log,
      notifyUsers: (companyId, userIds, payload) => push.notifyUsers(companyId, userIds, payload),
    }),
    externalApi: externalApiService({
      db,
      messages,
      schedules,
      sessions,
      reach,
      // The external API announces the tickets it opens (its only ticket change).
      emitTicket: (companyId, view) => tickets.emitTicket(companyId, view, { actor: 'api', before: null }),
      bus,
      log,
    }),
  };
}

export type Services = ReturnType<typeof makeServices>;
