import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import type { Server } from 'socket.io';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { installAccess } from './http/access.js';
import { requireAuth, type Authenticate } from './http/auth-hooks.js';
import { installErrorHandler } from './http/errors.js';
import { requestSerializer } from './http/log-redaction.js';
import { registerOpenApi } from './http/openapi.js';
import { briefRequestLog } from './http/request-log.js';
import { originPolicy, registerSecurityHeaders } from './http/security-headers.js';
import { subscriptionBlock } from './http/subscription-block.js';
import { refuseMalformedBody, refuseMalformedText } from './http/well-formed-text.js';
import { MAX_UPLOAD_BYTES } from './http/uploads.js';
import { webClientOptions } from './http/web-client.js';
import { jobQueue } from './jobs/job-queue.js';
import { systemClock, type Clock } from './lib/clock.js';
import { PRETTY_LOG, type LogStyle } from './lib/startup.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { channelFactory } from './messaging/channels/index.js';
import { cloudApiModule } from './messaging/channels/cloud-api/cloud-api-module.js';
import { telegramModule } from './messaging/channels/telegram/telegram-routes.js';
import { metaModule } from './messaging/channels/meta/meta-module.js';
import { webchatModule, visitorTyping } from './messaging/channels/webchat/webchat-module.js';
import { widgetService } from './messaging/channels/webchat/webchat-service.js';
import {
  attachWidgetNamespace,
  WIDGET_NAMESPACE,
  widgetHandshake,
} from './messaging/channels/webchat/webchat-socket.js';
import { widgetScriptRoute } from './messaging/channels/webchat/widget-script.js';
import { lidMap, withLidMap } from './messaging/lid-map.js';
import type { MakeSocket } from './messaging/channels/baileys/baileys-channel.js';
import { withInboundEvents } from './messaging/inbound-events.js';
import { sessionManager, type SessionManager } from './messaging/session-manager.js';
import { socketEvents, type Events } from './realtime/events.js';
import type { RoomGuards } from './realtime/room-policy.js';
import { closeSocketServer, createSocketServer } from './realtime/socket-server.js';
import { makeServices, type Services } from './services.js';
import type { AppModule } from './modules/app-module.js';
import { announcementModule } from './modules/announcements/announcement-module.js';
import { apiTokenModule, apiTokenRateLimit } from './modules/api-tokens/api-token-module.js';
import { isApiToken } from './modules/api-tokens/api-token-service.js';
import { authModule } from './modules/auth/auth-module.js';
import { memoryCounter, redisCounter } from './modules/auth/login-throttle.js';
import { invalidatingEvents, sessionCache } from './modules/auth/session-cache.js';
import { automationModule, transcriptionModule } from './modules/automation/automation-module.js';
import { billingModule } from './modules/billing/billing-module.js';
import { botModule } from './modules/bot/bot-module.js';
import { flowModule } from './modules/flows/flow-module.js';
import { flowNodesModule } from './modules/flow-nodes/flow-nodes-module.js';
import { campaignSettingModule } from './modules/campaign-settings/campaign-setting-module.js';
import { campaignModule } from './modules/campaigns/campaign-module.js';
import { chatModule } from './modules/chats/chat-module.js';
import { companyModule } from './modules/companies/company-module.js';
import { contactListModule } from './modules/contact-lists/contact-list-module.js';
import { contactModule } from './modules/contacts/contact-module.js';
import { contactMergeModule } from './modules/contact-merge/merge-module.js';
import { ticketPinModule } from './modules/ticket-pins/pin-module.js';
import { reactionModule } from './modules/reactions/reaction-module.js';
import { forwardModule } from './modules/forward/forward-module.js';
import { customerMessageModule } from './modules/customer-messages/customer-messages-module.js';
import { dashboardModule } from './modules/dashboard/dashboard-module.js';
import { liveModule } from './modules/live/live-module.js';
import { presenceModule } from './modules/presence/presence-module.js';
import { externalApiModule } from './modules/external-api/external-api-module.js';
import { fileListModule } from './modules/files/file-list-module.js';
import { helpModule } from './modules/helps/help-module.js';
import { messageTemplateModule } from './modules/message-templates/message-template-module.js';
import { messageModule } from './modules/messages/message-module.js';
import { opsService, type OpsService } from './modules/ops/ops-service.js';
import { installOps } from './modules/ops/ops-routes.js';
import { planModule } from './modules/plans/plan-module.js';
import { promptModule } from './modules/prompts/prompt-module.js';
import { pushModule } from './modules/push/push-module.js';
import { queueIntegrationModule } from './modules/queue-integrations/queue-integration-module.js';
import { queueModule } from './modules/queues/queue-module.js';
import { quickMessageModule } from './modules/quick-messages/quick-message-module.js';
import { macroModule } from './modules/macros/macro-module.js';
import { routingModule } from './modules/routing/routing-module.js';
import { ratingModule } from './modules/ratings/rating-module.js';
import { scheduleModule } from './modules/schedules/schedule-module.js';
import { settingModule } from './modules/settings/setting-module.js';
import { simulatorModule } from './modules/simulator/simulator-module.js';
import { systemModule } from './modules/system/system-module.js';
import { closingReasonModule } from './modules/closing/closing-module.js';
import { tagModule } from './modules/tags/tag-module.js';
import { customFieldModule } from './modules/custom-fields/custom-field-module.js';
import { ticketTimerModule } from './modules/ticket-timers/ticket-timer-module.js';
import { ticketModule } from './modules/tickets/ticket-module.js';
import { snoozeModule } from './modules/snooze/snooze-module.js';
import { contactOwnerModule } from './modules/contact-owners/contact-owner-module.js';
import { userModule } from './modules/users/user-module.js';
import { webhookModule } from './modules/webhooks/webhook-module.js';
import { slaModule } from './modules/sla/sla-module.js';
import { timelineModule } from './modules/timeline/timeline-module.js';
import { auditModule } from './modules/audit/audit-module.js';
import { installAudit } from './modules/audit/audit-hook.js';
import { auditService } from './modules/audit/audit-service.js';
import { privacyModule } from './modules/privacy/privacy-module.js';
import { privacyService } from './modules/privacy/privacy-service.js';
import { whaticketImportModule } from './modules/whaticket-import/whaticket-import-routes.js';
import { companyTransferModule } from './modules/company-transfer/company-transfer-module.js';
import { companyExportService } from './modules/company-transfer/export-service.js';
import { companyImportService } from './modules/company-transfer/import-service.js';
import { whatsappModule } from './modules/whatsapps/whatsapp-module.js';
import { connectionHealthModule } from './modules/connection-health/health-module.js';
import { connectionHealthService } from './modules/connection-health/health-service.js';

export interface AppDeps {
  config: Config;
  database: Database;
  mailer?: Mailer;
  /** Login/reset attempts allowed per IP and e-mail in 5 minutes. */
  loginLimit?: number;
  /** Serve the built web client from this folder (production start). */
  webDist?: string;
  logger?: boolean | object;
  /** 'pretty': readable lines (pino-pretty) and one short line per request, for development consoles. */
  logStyle?: LogStyle;
  /** Session manager options (tests shorten leases or run two "processes"). */
  sessions?: { leaseMs?: number; processId?: string; autoStart?: boolean; outboundPollMs?: number };
  /** Business time for timers and jobs (tests pass a manual clock). */
  clock?: Clock;
  /** The durable job queue's poller (tests turn it off and call services.jobs.runDue()). */
  jobs?: { autoStart?: boolean; pollMs?: number };
  /** Tests: a scripted Baileys socket instead of WhatsApp's (baileys-channel.ts `MakeSocket`). */
  baileysSocket?: MakeSocket;
}

export interface App {
  app: FastifyInstance;
  io: Server;
  events: Events;
  services: Services;
  sessions: SessionManager;
  /** Readiness, draining and metrics (modules/ops). */
  ops: OpsService;
  close(): Promise<void>;
}

/** TRUST_PROXY for Fastify: a hop count trusts that many proxies in front (its types omit the number form). */
const fastifyTrustProxy = (v: Config['trustProxy']) =>
  typeof v === 'number' ? (_address: string, hop: number) => hop < v : v;

/** Builds the whole application on a migrated database; tests call it without listening. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database } = deps;
  const pretty = deps.logger !== false && deps.logStyle === 'pretty';
  const app = Fastify({
    logger:
      deps.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
            // E-mails in paths and token-like query parameters never reach the log.
            serializers: { req: requestSerializer },
            ...(pretty ? { transport: PRETTY_LOG } : {}),
            ...(typeof deps.logger === 'object' ? deps.logger : {}),
          },
    // Pretty consoles get one line per request (below) instead of Fastify's two JSON objects.
    logController: new LogController({ disableRequestLogging: pretty }),
    bodyLimit: 2 * 1024 * 1024,
    // The spec's client calls both /users and /users/.
    routerOptions: { ignoreTrailingSlash: true },
    // X-Forwarded-For decides the client address only when it comes from a configured proxy (TRUST_PROXY).
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // A request id from the load balancer (nginx's $request_id) is kept, else a fresh one: logs and jobs carry it.
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);
  // Every route declares who may call it (config.access); one hook enforces it (docs/security.md).
  installAccess(app, database.db);
  // Admin writes, sign-ins, exports and imports go to the audit log (docs/audit.md), after the access check.
  installAudit(app, database.db, app.log, () => services.bus);
  await registerOpenApi(app);
  if (pretty) app.addHook('onResponse', briefRequestLog);

  // Assigned once the HTTP server is ready; services emit through the getter below.
  // eslint-disable-next-line prefer-const
  let io: Server | undefined;
  // Live sessions authenticate from memory for a few seconds; ending a session or changing a user forgets them.
  const liveSessions = sessionCache();
  const events = invalidatingEvents(
    socketEvents(() => io),
    liveSessions,
  );
  const mailer =
    deps.mailer ??
    (await createMailer({
      smtpUrl: config.smtpUrl,
      from: config.smtpFrom,
      outboxDir: join(config.dataDir, 'outbox'),
      log: app.log,
    }));
  // eslint-disable-next-line prefer-const -- assigned once the app is ready; services read it lazily
  let sessions: SessionManager | undefined;
  // One id for this process's session leases and job claims.
  const processId = deps.sessions?.processId ?? `proc-${randomUUID()}`;
  const clock = deps.clock ?? systemClock;
  const jobs = jobQueue({ db: database.db, clock, log: app.log, processId, pollMs: deps.jobs?.pollMs });
  // Login counters and request limits: shared through Redis when there is one, else per process.
  const loginLimit = deps.loginLimit ?? config.loginRateLimit;
  const loginCounter = config.redisUrl ? await redisCounter(config.redisUrl) : memoryCounter();
  const limiterRedis = config.redisUrl
    ? new (await import('ioredis')).Redis(config.redisUrl, { connectTimeout: 500, maxRetriesPerRequest: 1 })
    : undefined;
  const services = makeServices({
    db: database.db,
    events,
    mailer,
    config,
    sessions: () => sessions,
    log: app.log,
    sessionCache: liveSessions,
    listen: database.listen,
    outboundPollMs: deps.sessions?.outboundPollMs,
    clock,
    jobs,
    loginCounter,
    loginLimit,
  });
  // One authentication for every /api route and socket: a session's access token, or an API token (rec_pat_…).
  const authenticate: Authenticate = (token) =>
    isApiToken(token) ? services.apiTokens.authenticate(token) : services.auth.authenticate(token);
  const ops = opsService({
    database,
    processId,
    bus: services.bus,
    metricsToken: config.metricsToken,
    sockets: () => io?.engine.clientsCount ?? 0,
    sessions: () => sessions?.runningIds() ?? [],
    jobs: () => deps.jobs?.autoStart !== false,
  });
  installOps(app, ops);

  await registerSecurityHeaders(app, config);
  await app.register(cookie);
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 10 } });
  // preHandler: counted after validation (a malformed body is a 400 and uses up nothing).
  await app.register(rateLimit, {
    global: false,
    hook: 'preHandler',
    ...(limiterRedis ? { redis: limiterRedis, nameSpace: 'recado:rl:' } : {}),
  });

  // #34.1 The website chat widget (docs/channels.md "Website chat"): its /widget namespace spans processes
  // through the socket adapter; visitors' messages reach the connection's owner through channel commands.
  const widgetEmit = (room: string, event: string, payload: unknown) =>
    void io?.of(WIDGET_NAMESPACE).to(room).emit(event, payload);
  const widgets = widgetService({
    db: database.db,
    media: services.media,
    notifyChannel: (id, payload) => services.messages.commands.webhook(id, payload),
    emit: widgetEmit,
    visitorTyping: visitorTyping(database.db, events),
    log: app.log,
  });

  // The application: one entry per module (its routes, listeners, jobs, socket rooms). The order is the order
  // of registration; for listeners of the same event it matters: automation before the bot (a ticket an
  // automation takes gets no menu), transcription after it (a voice note's text never delays the menu).
  const modules: AppModule[] = [
    systemModule({ apiDocs: config.apiDocs }),
    cloudApiModule({
      db: database.db,
      box: services.box,
      deliver: (id, payload) => services.messages.commands.webhook(id, payload),
    }),
    // #34 Instagram and Messenger (docs/channels.md): handed over like the Cloud API's.
    metaModule({
      db: database.db,
      box: services.box,
      deliver: (id, payload) => services.messages.commands.webhook(id, payload),
    }),
    webchatModule({ db: database.db, widgets, emit: widgetEmit }),
    // #34 Telegram (docs/channels.md "Telegram"): checked by its secret header, handed over like the Cloud API's.
    telegramModule({
      db: database.db,
      box: services.box,
      deliver: (id, payload) => services.messages.commands.webhook(id, payload),
    }),
    userModule(services.users),
    settingModule(services.settings),
    companyModule(services.companies),
    planModule(services.plans),
    externalApiModule(services.externalApi, { rateLimit: config.apiRateLimit }),
    helpModule(services.helps),
    contactModule(services.contacts),
    contactMergeModule(services.contactMerge),
    queueModule(services.queues, services.queueOptions),
    whatsappModule(services.whatsapps),
    messageTemplateModule(services.templates),
    simulatorModule(services.simulator),
    ticketModule(services.tickets, database.db),
    timelineModule(database.db),
    messageModule(services.messages),
    ticketPinModule(services.ticketPins),
    reactionModule(services.reactions),
    forwardModule(services.forward),
    // Flows before automation and the bot: a message a flow takes gets no prompt, integration or queue menu.
    flowModule(services.flows, services.flowsRuntime),
    // Flow analytics, the queue menu's conversion, flow webhooks, held runs resumed (docs/flows.md).
    flowNodesModule({
      db: database.db,
      clock: services.clock,
      log: app.log,
      flows: services.flows,
      resume: services.flowsRuntime.resume,
    }),
    automationModule(services.automation),
    botModule(services.bot),
    transcriptionModule(services.automation),
    ratingModule(services.ratings, services.customerMessages),
    customerMessageModule(services.customerMessages),
    ticketTimerModule(services.ticketTimers),
    snoozeModule(services.snooze),
    contactOwnerModule(database.db),
    routingModule(services.routing),
    contactListModule(services.contactLists),
    fileListModule(services.fileLists),
    campaignSettingModule(services.campaignSettings),
    // Campaigns and schedules of a company whose subscription is blocked wait, and resume once it pays.
    campaignModule(services.campaigns, services.campaignDispatch, services.billing.pausedWhileBlocked),
    tagModule(services.tags),
    closingReasonModule(database.db),
    customFieldModule(services.customFields),
    quickMessageModule(services.quickMessages),
    macroModule(services.macros),
    scheduleModule(services.schedules, services.billing.pausedWhileBlocked),
    queueIntegrationModule(services.queueIntegrations),
    promptModule(services.prompts),
    dashboardModule(services.dashboard),
    presenceModule(services.presence),
    liveModule(services.live),
    chatModule(services.chats),
    announcementModule(services.announcements),
    pushModule(services.push),
    slaModule(services.sla),
    webhookModule(services.webhooks),
    // #33.1 and #33.2 A connection's history, uptime and outage alerts (docs/connection-health.md).
    connectionHealthModule(
      connectionHealthService({
        db: database.db,
        events,
        jobs,
        clock,
        mailer,
        notifyUsers: (companyId, userIds, payload) => services.push.notifyUsers(companyId, userIds, payload),
        webhook: (companyId, event, data, lane) => services.webhooks.enqueue(companyId, event, data, lane),
        allowPrivateUrls: config.allowPrivateUrls,
        publicUrl: config.publicUrl,
        log: app.log,
      }),
      { registry: ops.registry },
    ),
    billingModule(services.billing),
    authModule({
      auth: services.auth,
      companies: services.companies,
      authenticate,
      secureCookies: config.env === 'production',
      refreshTtlSeconds: config.refreshTokenTtl,
      loginLimit,
    }),
    apiTokenModule(services.apiTokens),
    auditModule(auditService({ db: database.db, clock: services.clock })),
    // #35 Data subject requests, consent and retention (docs/privacy.md).
    privacyModule(
      privacyService({
        db: database.db,
        media: services.media,
        clock,
        messages: services.messages,
        log: app.log,
      }),
      app.log,
    ),
    // #35.5 Import from Whaticket SaaS, for the super user (docs/migration.md).
    whaticketImportModule(database),
    // #35.4 Company export and import (docs/migration.md "Recado archive format").
    companyTransferModule({
      exports: companyExportService({
        db: database.db,
        dataDir: config.dataDir,
        media: services.media,
        clock,
        jobs,
        install: config.publicUrl,
        log: app.log,
      }),
      imports: companyImportService({ db: database.db, media: services.media, clock, log: app.log }),
      dataDir: config.dataDir,
    }),
  ];
  for (const m of modules) m.listeners?.(services.bus);
  // Every durable job, registered in one place (server/src/jobs/README.md).
  jobs.register(...modules.flatMap((m) => m.jobs ?? []));

  await app.register(
    async (api) => {
      // A company past dueDate + 1 day may only read and pay (402 ERR_SUBSCRIPTION_EXPIRED), whatever
      // authenticated the call: a user's session, a token, a connection's token (the external API).
      api.addHook('preValidation', subscriptionBlock(services.billing.isBlocked));
      // One rule for text: a lone UTF-16 surrogate anywhere in a body, query or path is a 400 (never U+FFFD).
      api.addHook('preValidation', refuseMalformedText);
      // The same for the bytes of a JSON or text body: not UTF-8 is a 400, never decoded to U+FFFD.
      api.addHook('preParsing', refuseMalformedBody);
      for (const m of modules) for (const routes of m.openRoutes ?? []) await api.register(routes);
      await api.register(async (priv) => {
        priv.addHook('onRequest', requireAuth(authenticate));
        // API tokens: API_RATE_LIMIT calls a minute per token (docs/api.md "API tokens").
        priv.addHook('onRequest', apiTokenRateLimit(priv, config.apiRateLimit));
        for (const m of modules) for (const routes of m.routes ?? []) await priv.register(routes);
      });
    },
    { prefix: '/api' },
  );

  await app.register(widgetScriptRoute);

  const webDist = deps.webDist;
  const spa = Boolean(webDist && existsSync(join(webDist, 'index.html')));
  if (spa) await app.register(fastifyStatic, webClientOptions(webDist!));
  // The SPA's client-side routes all answer index.html (HEAD like GET); unknown /api paths keep their JSON 404.
  app.setNotFoundHandler((req, reply) => {
    if (
      spa &&
      (req.method === 'GET' || req.method === 'HEAD') &&
      !req.url.startsWith('/api') &&
      !req.url.startsWith('/socket.io')
    )
      return reply.sendFile('index.html');
    return reply
      .status(404)
      .send({ error: 'ERR_NOT_FOUND', message: `No route ${req.method} ${req.url.split('?')[0]}` });
  });

  await app.ready();
  const guards: RoomGuards = Object.assign({}, ...modules.map((m) => m.rooms));
  io = await createSocketServer({
    httpServer: app.server,
    log: app.log,
    authenticate,
    guards,
    redisUrl: config.redisUrl,
    postgresUrl: database.kind === 'postgres' ? config.databaseUrl : undefined,
    allowOrigin: originPolicy(config),
    onPresence: (t, online) => services.users.setPresence(t, online),
    presence: services.presence,
    widgetHandshake: widgetHandshake(widgets),
  });
  attachWidgetNamespace(io, widgets, app.log);

  sessions = sessionManager({
    db: database.db,
    log: app.log,
    processId,
    leaseMs: deps.sessions?.leaseMs,
    // #33.6 LIDs first: a known hidden id arrives as its phone, and what a delivery reveals is learnt.
    inbound: withLidMap(
      withInboundEvents(services.pipeline, {
        bus: services.bus,
        ackIntercepts: modules.flatMap((m) => m.ackIntercepts ?? []),
        ackClaims: modules.flatMap((m) => m.ackClaims ?? []),
        log: app.log,
      }),
      lidMap({ db: database.db, merge: services.contactMerge, contacts: services.contacts, log: app.log }),
    ),
    onState: async (ref, state) => {
      await services.whatsapps.applyState(ref, state);
      // #33 The health module keeps the history and the outage alerts from it (a listener, never in here).
      void services.bus.emit('connection.state', { ref, state, at: clock.now() });
      // Messages stored while the connection was down (or elsewhere) go out once it is connected here.
      if (state.status === 'CONNECTED') services.messages.outbound.wake(ref.id);
    },
    createChannel: channelFactory({
      db: database.db,
      media: services.media,
      box: services.box,
      log: app.log,
      allowPrivateUrls: config.allowPrivateUrls,
      // Connections left on Meta's default Graph URL go to the operator's (CLOUD_API_GRAPH_URL), if set.
      operatorGraphUrl: config.cloudApiGraphUrl,
      notifySimulator: services.simulator.notify,
      listen: database.listen,
      baileysSocket: deps.baileysSocket,
      telegram: { apiUrl: config.telegramApiUrl, publicUrl: config.publicUrl },
      webchat: { mailer, emit: widgetEmit },
    }),
  });
  if (deps.sessions?.autoStart !== false) await sessions.start();
  await services.messages.outbound.start();
  await services.messages.commands.start();
  const manager = sessions;
  if (deps.jobs?.autoStart !== false) jobs.start();

  return {
    app,
    io,
    events,
    services,
    sessions: manager,
    ops,
    async close() {
      ops.drain();
      // Listeners still at work finish first (never hanging a shutdown on a stuck one).
      await Promise.race([services.bus.idle(), new Promise((r) => setTimeout(r, 5000).unref?.())]);
      await jobs.stop();
      services.live.stop();
      services.campaignDispatch.stop();
      await services.messages.outbound.stop();
      await services.messages.commands.stop();
      await manager.stop();
      if (io) await closeSocketServer(io);
      await app.close();
      await loginCounter.close?.();
      limiterRedis?.disconnect();
      ops.stop();
    },
  };
}
