import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import { webClientOptions } from './http/web-client.js';
import { briefRequestLog } from './http/request-log.js';
import { PRETTY_LOG, type LogStyle } from './lib/startup.js';
import multipart from '@fastify/multipart';
import type { Server } from 'socket.io';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { installErrorHandler } from './http/errors.js';
import { requireAuth } from './http/auth-hooks.js';
import { access, installAccess } from './http/access.js';
import { JsonList } from '@recado/contracts';
import { openApiRoutes, registerOpenApi } from './http/openapi.js';
import { requestSerializer } from './http/log-redaction.js';
import { originPolicy, registerSecurityHeaders } from './http/security-headers.js';
import { tokenService } from './lib/tokens.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { socketEvents, type Events } from './realtime/events.js';
import { closeSocketServer, createSocketServer } from './realtime/socket-server.js';
import type { RoomGuards } from './realtime/room-policy.js';
import { authService } from './modules/auth/auth-service.js';
import { authRoutes } from './modules/auth/auth-routes.js';
import { invalidatingEvents, sessionCache, type SessionCache } from './modules/auth/session-cache.js';
import {
  loginThrottle,
  memoryCounter,
  redisCounter,
  type AttemptCounter,
} from './modules/auth/login-throttle.js';
import { companyService } from './modules/companies/company-service.js';
import { companyRoutes } from './modules/companies/company-routes.js';
import { planService } from './modules/plans/plan-service.js';
import { planRoutes } from './modules/plans/plan-routes.js';
import { userService } from './modules/users/user-service.js';
import { userRoutes } from './modules/users/user-routes.js';
import { settingService } from './modules/settings/setting-service.js';
import { settingRoutes } from './modules/settings/setting-routes.js';
import { helpService } from './modules/helps/help-service.js';
import { helpRoutes } from './modules/helps/help-routes.js';
import { contactService } from './modules/contacts/contact-service.js';
import { contactRoutes } from './modules/contacts/contact-routes.js';
import { queueService } from './modules/queues/queue-service.js';
import { queueOptionService } from './modules/queues/queue-option-service.js';
import { queueRoutes } from './modules/queues/queue-routes.js';
import { systemRoutes } from './modules/system/system-routes.js';
import { whatsappService } from './modules/whatsapps/whatsapp-service.js';
import { whatsappRoutes } from './modules/whatsapps/whatsapp-routes.js';
import { simulatorService } from './modules/simulator/simulator-service.js';
import { simulatorRoutes } from './modules/simulator/simulator-routes.js';
import { mediaStore } from './messaging/media-store.js';
import { inboundPipeline } from './messaging/inbound-pipeline.js';
import { sessionManager, type SessionManager } from './messaging/session-manager.js';
import { messageService, type MessageService } from './modules/messages/message-service.js';
import { voiceNotes } from './modules/messages/voice-note.js';
import { messageRoutes } from './modules/messages/message-routes.js';
import { MAX_UPLOAD_BYTES } from './http/uploads.js';
import { ticketService } from './modules/tickets/ticket-service.js';
import { ticketRoutes } from './modules/tickets/ticket-routes.js';
import { tagService } from './modules/tags/tag-service.js';
import { tagRoutes } from './modules/tags/tag-routes.js';
import { dashboardService } from './modules/dashboard/dashboard-service.js';
import { dashboardRoutes } from './modules/dashboard/dashboard-routes.js';
import { quickMessageService } from './modules/quick-messages/quick-message-service.js';
import { quickMessageRoutes } from './modules/quick-messages/quick-message-routes.js';
import { scheduleService } from './modules/schedules/schedule-service.js';
import { scheduleRoutes } from './modules/schedules/schedule-routes.js';
import { queueIntegrationService } from './modules/queue-integrations/queue-integration-service.js';
import { queueIntegrationRoutes } from './modules/queue-integrations/queue-integration-routes.js';
import { promptService } from './modules/prompts/prompt-service.js';
import { promptRoutes } from './modules/prompts/prompt-routes.js';
import { secretBox } from './lib/crypto.js';
import { sealCloudConfig } from './messaging/channels/cloud-api/cloud-api-config.js';
import {
  cloudApiWebhookRoutes,
  findWebhookConnection,
} from './messaging/channels/cloud-api/cloud-api-routes.js';
import { contactListService } from './modules/contact-lists/contact-list-service.js';
import { contactListRoutes } from './modules/contact-lists/contact-list-routes.js';
import { fileListService } from './modules/files/file-list-service.js';
import { fileListRoutes } from './modules/files/file-list-routes.js';
import { campaignSettingService } from './modules/campaign-settings/campaign-setting-service.js';
import { campaignSettingRoutes } from './modules/campaign-settings/campaign-setting-routes.js';
import { botService } from './modules/bot/bot-service.js';
import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from './lib/clock.js';
import { jobQueue, type JobQueue } from './jobs/job-queue.js';
import { ratingService } from './modules/ratings/rating-service.js';
import { ticketTimerService } from './modules/ticket-timers/ticket-timer-service.js';
import { campaignDispatch } from './modules/campaigns/campaign-dispatch.js';
import { campaignService } from './modules/campaigns/campaign-service.js';
import { campaignRoutes } from './modules/campaigns/campaign-routes.js';
import { campaignAckIntercept, campaignListeners } from './modules/campaigns/campaign-listener.js';
import { setOperatorGraphUrl } from './messaging/channels/cloud-api/graph-client.js';
import { domainBus } from './events/domain-events.js';
import { channelFactory } from './messaging/channels/index.js';
import { loadViewer, mayFollowTicket } from './modules/tickets/ticket-queries.js';
import { withInboundEvents } from './messaging/inbound-events.js';
import { botListeners } from './modules/bot/bot-listener.js';
import { automationService } from './modules/automation/automation-service.js';
import { automationListeners, transcriptionListeners } from './modules/automation/automation-listener.js';
import { ratingListeners } from './modules/ratings/rating-listener.js';
import { customerMessages } from './modules/customer-messages/customer-messages.js';
import { chatService } from './modules/chats/chat-service.js';
import { chatRoutes } from './modules/chats/chat-routes.js';
import { customerMessageListeners } from './modules/customer-messages/customer-messages-listener.js';
import { announcementService } from './modules/announcements/announcement-service.js';
import { announcementRoutes } from './modules/announcements/announcement-routes.js';
import { pushService } from './modules/push/push-service.js';
import { pushRoutes } from './modules/push/push-routes.js';
import { pushListeners } from './modules/push/push-listener.js';
import { opsService, type OpsService } from './modules/ops/ops-service.js';
import { installOps } from './modules/ops/ops-routes.js';
import { messageTemplateService } from './modules/message-templates/message-template-service.js';
import { messageTemplateRoutes } from './modules/message-templates/message-template-routes.js';
import { externalApiService } from './modules/external-api/external-api-service.js';
import { externalApiRoutes } from './modules/external-api/external-api-routes.js';
import { webhookService } from './modules/webhooks/webhook-service.js';
import { webhookRoutes } from './modules/webhooks/webhook-routes.js';
import { webhookListeners } from './modules/webhooks/webhook-listener.js';
import { billingService } from './modules/billing/billing-service.js';
import { billingRoutes, billingWebhookRoutes } from './modules/billing/billing-routes.js';
import { subscriptionBlock } from './http/subscription-block.js';

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
}

export interface App {
  app: FastifyInstance;
  io: Server;
  events: Events;
  services: ReturnType<typeof makeServices>;
  sessions: SessionManager;
  /** Readiness, draining and metrics (modules/ops). */
  ops: OpsService;
  close(): Promise<void>;
}

function makeServices(deps: {
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
  const templates = messageTemplateService({ db, box, allowPrivateUrls: config.allowPrivateUrls, log });
  // Domain events (docs/events.md): emitters below, each module's listeners subscribed at the end.
  const bus = domainBus(log);
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
  });
  const ratings = ratingService({ db, events, clock, jobs, messages: () => messages, log });
  const tickets = ticketService({ db, events, log, bus });
  const ticketTimers = ticketTimerService({
    db,
    clock,
    messages: () => messages,
    emitTicket: tickets.emitTicket,
    log,
  });
  const campaignDispatcher = campaignDispatch({
    db,
    events,
    media,
    clock,
    jobs: () => jobs,
    sessions,
    log,
    bus,
  });
  const automation = automationService({
    db,
    box,
    media,
    messages: () => messages,
    emitTicket: tickets.emitTicket,
    clock,
    config,
    log,
    jobs: () => jobs,
  });
  const bot = botService({
    db,
    messages: () => messages,
    emitTicket: tickets.emitTicket,
    clock,
    jobs,
    log,
    onQueued: automation.onQueued,
  });
  const automaticMessages = customerMessages({ db, messages: () => messages, log });
  automationListeners(bus, automation); // before the bot's: a ticket an automation takes gets no menu
  botListeners(bus, bot);
  transcriptionListeners(bus, automation); // after the bot's: a voice note's text never delays the menu
  ratingListeners(bus, { ratings, customerMessages: automaticMessages });
  customerMessageListeners(bus, automaticMessages);
  campaignListeners(bus, campaignDispatcher);
  const push = pushService({ db, jobs, vapid: config.vapid, allowPrivateUrls: config.allowPrivateUrls, log });
  pushListeners(bus, push);
  const schedules = scheduleService({
    db,
    events,
    media,
    clock,
    jobs: () => jobs,
    messages: () => messages,
    emitTicket: tickets.emitTicket,
    bus,
    log,
  });
  const contactLists = contactListService({ db, events, sessions, log, jobs });
  const webhooks = webhookService({
    db,
    events,
    box,
    clock,
    jobs,
    log,
    allowPrivateUrls: config.allowPrivateUrls,
  });
  webhookListeners(bus, webhooks);
  const billing = billingService({
    db,
    events,
    clock,
    box,
    jobs: () => jobs,
    asaasApiUrl: config.asaasApiUrl,
    webhookToken: config.asaasWebhookToken,
    log,
  });
  // Every durable job, registered in one place (server/src/jobs/README.md).
  jobs.register(
    ...Object.values(ratings.jobs),
    ...Object.values(ticketTimers.jobs),
    // Campaigns and schedules of a company whose subscription is blocked wait, and resume once it pays.
    ...billing.pausedWhileBlocked(Object.values(campaignDispatcher.jobs)),
    ...Object.values(bot.jobs),
    ...billing.pausedWhileBlocked(Object.values(schedules.jobs)),
    ...Object.values(contactLists.jobs),
    ...Object.values(push.jobs),
    ...Object.values(templates.jobs),
    ...Object.values(automation.jobs),
    ...Object.values(webhooks.jobs),
    ...Object.values(billing.jobs),
  );
  return {
    billing,
    bus,
    bot,
    automation,
    clock,
    jobs,
    ratings,
    ticketTimers,
    messages,
    templates,
    tickets,
    tags: tagService({ db, events, emitTicket: tickets.emitTicket }),
    dashboard: dashboardService({ db, clock }),
    quickMessages: quickMessageService({ db, events, media }),
    schedules,
    media,
    pipeline: inboundPipeline({ db, events, media, log, bus, intercept: ratings }),
    box,
    whatsapps: whatsappService({
      db,
      events,
      sessions,
      box,
      // Cloud API secrets are sealed before they are stored; other channels keep no secrets in their config.
      sealConfig: (channel, cfg, previous) =>
        channel === 'cloud_api'
          ? sealCloudConfig(cfg, box, previous, { allowPrivateUrls: config.allowPrivateUrls })
          : cfg,
    }),
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
    companies: companyService({ db, events }),
    plans: planService({ db }),
    users: userService({ db, events }),
    settings: settingService({ db, events, box }),
    helps: helpService({ db }),
    contacts: contactService({ db, events, sessions, log, bus }),
    queues: queueService({ db, events }),
    queueOptions: queueOptionService({ db }),
    queueIntegrations: queueIntegrationService({
      db,
      events,
      box,
      allowPrivateUrls: config.allowPrivateUrls,
      testDialogflow: automation.testDialogflow,
    }),
    prompts: promptService({ db, events, box, allowPrivateUrls: config.allowPrivateUrls }),
    contactLists,
    fileLists: fileListService({ db, events, media }),
    campaignSettings: campaignSettingService({ db }),
    campaignDispatch: campaignDispatcher,
    campaigns: campaignService({ db, events, clock, media, dispatch: campaignDispatcher }),
    chats: chatService({ db, events, bus }),
    announcements: announcementService({ db, events, media }),
    push,
    webhooks,
    externalApi: externalApiService({
      db,
      messages: () => messages,
      schedules: () => schedules,
      sessions,
      emitTicket: tickets.emitTicket,
      bus,
      log,
    }),
  };
}

/** TRUST_PROXY for Fastify: a hop count trusts that many proxies in front (its types omit the number form). */
const fastifyTrustProxy = (v: Config['trustProxy']) =>
  typeof v === 'number' ? (_address: string, hop: number) => hop < v : v;

/** Builds the whole application on a migrated database; tests call it without listening. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database } = deps;
  if (config.cloudApiGraphUrl) setOperatorGraphUrl(config.cloudApiGraphUrl);
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
  const authenticate = services.auth.authenticate;
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

  await app.register(
    async (api) => {
      await api.register(systemRoutes);
      await api.register(openApiRoutes);
      // Meta's webhook: signed with the app secret, no user token.
      await api.register(
        cloudApiWebhookRoutes({
          box: services.box,
          findConnection: findWebhookConnection(database.db),
          // Processed before the 200: a failure answers 500 and Meta delivers again (the pipeline is idempotent).
          deliver: async (id, payload) => {
            const channel = sessions?.get(id) as { handleWebhook?(p: unknown): Promise<unknown> } | undefined;
            if (!channel?.handleWebhook) throw new Error('connection not running in this process');
            await channel.handleWebhook(payload);
          },
        }),
      );
      api.get('/plans/list', { config: access.public, schema: { response: { 200: JsonList } } }, () =>
        services.plans.listPublic(),
      );
      // The external API: a connection token instead of a user session (docs/external-api.md).
      await api.register(externalApiRoutes(services.externalApi, { rateLimit: config.apiRateLimit }));
      // Asaas's webhook: its own token header, no user token.
      await api.register(billingWebhookRoutes(services.billing));
      await api.register(
        authRoutes({
          auth: services.auth,
          companies: services.companies,
          authenticate,
          secureCookies: config.env === 'production',
          refreshTtlSeconds: config.refreshTokenTtl,
          loginLimit,
        }),
      );
      await api.register(async (priv) => {
        priv.addHook('onRequest', requireAuth(authenticate));
        // A company past dueDate + 1 day may only read and pay (402 ERR_SUBSCRIPTION_EXPIRED).
        priv.addHook('onRequest', subscriptionBlock(services.billing.isBlocked));
        // Every module behind a signed-in user, one line each.
        for (const routes of [
          userRoutes(services.users),
          settingRoutes(services.settings),
          companyRoutes(services.companies),
          planRoutes(services.plans),
          helpRoutes(services.helps),
          contactRoutes(services.contacts),
          queueRoutes(services.queues, services.queueOptions),
          whatsappRoutes(services.whatsapps),
          messageTemplateRoutes(services.templates),
          simulatorRoutes(services.simulator),
          ticketRoutes(services.tickets),
          messageRoutes(services.messages),
          contactListRoutes(services.contactLists),
          fileListRoutes(services.fileLists),
          campaignSettingRoutes(services.campaignSettings),
          campaignRoutes(services.campaigns),
          tagRoutes(services.tags),
          quickMessageRoutes(services.quickMessages),
          scheduleRoutes(services.schedules),
          queueIntegrationRoutes(services.queueIntegrations),
          promptRoutes(services.prompts),
          dashboardRoutes(services.dashboard),
          chatRoutes(services.chats),
          announcementRoutes(services.announcements),
          pushRoutes(services.push),
          webhookRoutes(services.webhooks),
          billingRoutes(services.billing),
        ])
          await priv.register(routes);
      });
    },
    { prefix: '/api' },
  );

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
  const guards: RoomGuards = {
    // Status lists and notifications: the rooms of what this user may see (contracts/visibility.ts).
    viewer: (t) => loadViewer(database.db, t),
    simulator: (t, whatsappId, number) => services.simulator.mayFollow(t, whatsappId, number),
    // A ticket's room: same company, and a ticket this user may see.
    ticket: (t, ticketId) => mayFollowTicket(database.db, t, ticketId),
    // An internal chat's room: members only.
    chat: (t, chatId) => services.chats.isMember(t, chatId),
  };
  io = await createSocketServer({
    httpServer: app.server,
    log: app.log,
    authenticate,
    guards,
    redisUrl: config.redisUrl,
    postgresUrl: database.kind === 'postgres' ? config.databaseUrl : undefined,
    allowOrigin: originPolicy(config),
    onPresence: (t, online) => services.users.setPresence(t, online),
  });

  sessions = sessionManager({
    db: database.db,
    log: app.log,
    processId,
    leaseMs: deps.sessions?.leaseMs,
    inbound: withInboundEvents(services.pipeline, {
      bus: services.bus,
      ackIntercepts: [campaignAckIntercept(services.campaignDispatch)],
      log: app.log,
    }),
    onState: async (ref, s) => {
      await services.whatsapps.applyState(ref, s);
      // Messages stored while the connection was down (or elsewhere) go out once it is connected here.
      if (s.status === 'CONNECTED') services.messages.outbound.wake(ref.id);
    },
    createChannel: channelFactory({
      db: database.db,
      media: services.media,
      box: services.box,
      log: app.log,
      allowPrivateUrls: config.allowPrivateUrls,
      notifySimulator: services.simulator.notify,
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
