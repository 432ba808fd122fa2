import { describe, expect, test } from 'vitest';
import { expectError, testApp } from '../../test/helpers.js';
import { describeAccess, routeTable } from './access.js';

const t = await testApp();

/** One line per route: what a reviewer reads to see who may call what. */
const table = () =>
  routeTable(t.app.app)
    .map((r) => `${r.method.padEnd(6)} ${r.url.padEnd(48)} ${describeAccess(r.access)}`)
    .join('\n');

describe('access declared on the route', () => {
  test('every route declares its access', () => {
    const missing = routeTable(t.app.app).filter((r) => r.access === undefined);
    expect(
      missing.map((r) => `${r.method} ${r.url}`),
      'these routes declare no config.access (docs/security.md "Access on the route")',
    ).toEqual([]);
  });

  test('the one hook enforces role, plan flag and sign-in', async () => {
    const gold = await t.company('AccessGold');
    const bronze = await t.company('AccessBronze', { planId: 1 });
    const user = await t.user(gold.admin, 'user');
    // Role: admin routes refuse a plain user, super routes refuse a company admin.
    await expectError(await t.as(user).get('/dashboard?days=7'), 403, 'ERR_NO_PERMISSION');
    expect((await t.as(gold.admin).get('/dashboard?days=7')).status).toBe(200);
    await expectError(await t.as(gold.admin).get('/companies/list'), 403, 'ERR_NO_PERMISSION');
    expect((await t.as(await t.superuser()).get('/companies/list')).status).toBe(200);
    // Plan flag: the bronze plan has no campaigns, whatever the role.
    await expectError(await t.as(bronze.admin).get('/campaigns'), 403, 'ERR_NO_PERMISSION');
    expect((await t.as(user).get('/campaigns')).status).toBe(200);
    // Checked after validation, like the module preHandlers it replaced: a malformed body is a 400 first.
    await expectError(await t.as(user).post('/campaigns', {}), 400, 'ERR_VALIDATION');
    await expectError(await t.as(user).del('/campaigns/1'), 403, 'ERR_NO_PERMISSION');
    // Not signed in: 401 before anything else; public routes answer.
    await expectError(await t.request('GET', '/dashboard?days=7'), 401, 'ERR_SESSION_EXPIRED');
    expect((await t.request('GET', '/health')).status).toBe(200);
  });

  test('the table of every route and its access', async () => {
    // DUMP_ACCESS=<file> writes the table as it is, to review a change of routes against EXPECTED.
    if (process.env.DUMP_ACCESS) (await import('node:fs')).writeFileSync(process.env.DUMP_ACCESS, table());
    expect(table()).toBe(EXPECTED);
  });
});

/** Who may call what (`user`: any signed-in profile; `+ flag`: the company's plan must have it). */
const EXPECTED = `
GET    /api/ready                                       public
GET    /api/version                                     public
GET    /api/health                                      public
GET    /api/openapi.json                                public
GET    /api/docs                                        public
GET    /api/docs/static/index.html                      public
GET    /api/docs/static/swagger-initializer.js          public
GET    /api/docs/json                                   public
GET    /api/docs/yaml                                   public
GET    /api/docs/static/*                               public
GET    /api/webhooks/cloud-api/:whatsappId              public
POST   /api/webhooks/cloud-api/:whatsappId              public
GET    /api/webhooks/meta/:connectionId                 public
POST   /api/webhooks/meta/:connectionId                 public
OPTIONS /api/widget/:publicId/*                          public
GET    /api/widget/:publicId/config                     public
POST   /api/widget/:publicId/visitors                   public
GET    /api/widget/:publicId/messages                   public
POST   /api/widget/:publicId/messages                   public
POST   /api/widget/:publicId/files                      public
GET    /api/widget/:publicId/files/:id                  public
POST   /api/widget/:publicId/seen                       public
POST   /api/widget/:publicId/typing                     public
POST   /api/webhooks/telegram/:connectionId             public
GET    /api/plans/list                                  public
POST   /api/messages/send                               connection
POST   /api/messages/schedule                           connection
GET    /api/messages/status/:id                         connection
POST   /api/contacts/check                              connection
GET    /api/webhook-media/:id                           public
POST   /api/webhooks/asaas                              public
POST   /api/auth/login                                  public
POST   /api/auth/refresh_token                          public
DELETE /api/auth/logout                                 user
GET    /api/auth/me                                     user
POST   /api/companies/cadastro                          public
POST   /api/forgetpassword/:email                       public
POST   /api/resetpasswords                              public
POST   /api/tickets/:id/widget-typing                   user
GET    /api/users/                                      user
GET    /api/users/list                                  user
GET    /api/users/:id                                   user
POST   /api/users                                       admin
PUT    /api/users/:id                                   user
DELETE /api/users/:id                                   admin
POST   /api/users/set-language/:lang                    user
GET    /api/settings                                    user
GET    /api/settings/:key                               user
PUT    /api/settings/:key                               admin
GET    /api/companies                                   super
GET    /api/companies/list                              super
GET    /api/companies/:id                               user
GET    /api/companies/listPlan/:companyId               user
POST   /api/companies                                   super
PUT    /api/companies/:id                               super
PUT    /api/companies/:id/schedules                     admin
DELETE /api/companies/:id                               super
GET    /api/plans/all                                   super
GET    /api/plans/:id                                   user
POST   /api/plans                                       super
PUT    /api/plans/:id                                   super
DELETE /api/plans/:id                                   super
GET    /api/helps                                       user
GET    /api/helps/list                                  user
GET    /api/helps/:id                                   user
POST   /api/helps                                       super
PUT    /api/helps/:id                                   super
DELETE /api/helps/:id                                   super
GET    /api/contacts                                    user
GET    /api/contacts/list                               user
GET    /api/contacts/export.csv                         user
GET    /api/contacts/:id                                user
POST   /api/contacts                                    user
PUT    /api/contacts/:id                                user
DELETE /api/contacts/:id                                admin
POST   /api/contacts/import                             user
POST   /api/contacts/upload                             user
GET    /api/contacts/duplicates                         user
GET    /api/contacts/:id/merge-preview                  user
POST   /api/contacts/:id/merge                          user
GET    /api/queue                                       user
GET    /api/queue/:id                                   user
POST   /api/queue                                       admin
PUT    /api/queue/:id                                   admin
DELETE /api/queue/:id                                   admin
GET    /api/queue-options                               user
GET    /api/queue-options/:id                           user
POST   /api/queue-options                               user
PUT    /api/queue-options/:id                           user
DELETE /api/queue-options/:id                           user
GET    /api/whatsapp                                    user
GET    /api/whatsapp/:id                                user
POST   /api/whatsapp                                    admin
PUT    /api/whatsapp/:id                                admin
DELETE /api/whatsapp/:id                                admin
GET    /api/whatsapp/:id/inbound-failures               admin
GET    /api/whatsapp/:id/token                          admin
POST   /api/whatsapp/:id/token                          admin
POST   /api/whatsappsession/:id                         admin
PUT    /api/whatsappsession/:id                         admin
DELETE /api/whatsappsession/:id                         admin
GET    /api/whatsapp/:id/templates                      user
POST   /api/whatsapp/:id/templates/sync                 admin
POST   /api/simulator/:whatsappId/inbound               user
GET    /api/simulator/:whatsappId/conversations         user
GET    /api/simulator/:whatsappId/conversations/:number user
POST   /api/simulator/:whatsappId/read/:number          user
GET    /api/simulator/:whatsappId/media/:providerId     user
GET    /api/tickets                                     user
GET    /api/tickets/u/:ticketId                         user
GET    /api/tickets/:id                                 user
POST   /api/tickets                                     user
PUT    /api/tickets/:id                                 user
DELETE /api/tickets/:id                                 admin
GET    /api/ticket/:id/histories                        user
POST   /api/ticket-notes                                user
GET    /api/ticket-notes/list                           user
DELETE /api/ticket-notes/:id                            user
GET    /api/tickets/:id/events                          user
GET    /api/messages/:ticketId                          user
POST   /api/messages/:ticketId                          user
DELETE /api/messages/:id                                user
PUT    /api/messages/:id                                user
POST   /api/messages/:ticketId/read                     user
GET    /api/messages/:id/media                          user
POST   /api/tickets/:id/pin                             user
DELETE /api/tickets/:id/pin                             user
PUT    /api/tickets/:id/pin                             user
POST   /api/messages/:messageId/reactions               user
POST   /api/messages/forward                            user
GET    /api/flows                                       user + useFlows
GET    /api/flows/list                                  user + useFlows
POST   /api/flows/import                                admin + useFlows
GET    /api/flows/:id                                   user + useFlows
POST   /api/flows                                       admin + useFlows
PUT    /api/flows/:id                                   admin + useFlows
DELETE /api/flows/:id                                   admin + useFlows
POST   /api/flows/:id/validate                          user + useFlows
POST   /api/flows/:id/publish                           admin + useFlows
GET    /api/flows/:id/versions/:version                 user + useFlows
GET    /api/flows/:id/export                            user + useFlows
POST   /api/flows/:id/try                               admin + useFlows
POST   /api/tickets/:id/flow                            user + useFlows
POST   /api/flows/convert                               admin + useFlows
GET    /api/flows/:id/stats                             admin + useFlows
POST   /api/tickets/:id/handoff                         user
GET    /api/automation/alerts                           admin
POST   /api/tickets/:id/snooze                          user
DELETE /api/tickets/:id/snooze                          user
POST   /api/tickets/:id/skip                            user
GET    /api/routing/stats                               supervisor
GET    /api/contact-lists                               user + useCampaigns
GET    /api/contact-lists/list                          user + useCampaigns
GET    /api/contact-lists/:id                           user + useCampaigns
POST   /api/contact-lists                               admin + useCampaigns
PUT    /api/contact-lists/:id                           admin + useCampaigns
DELETE /api/contact-lists/:id                           admin + useCampaigns
POST   /api/contact-lists/:id/upload                    admin + useCampaigns
GET    /api/contact-list-items                          user + useCampaigns
GET    /api/contact-list-items/:id                      user + useCampaigns
POST   /api/contact-list-items                          admin + useCampaigns
PUT    /api/contact-list-items/:id                      admin + useCampaigns
DELETE /api/contact-list-items/:id                      admin + useCampaigns
GET    /api/files                                       user
GET    /api/files/list                                  user
GET    /api/files/:id                                   user
POST   /api/files                                       admin
PUT    /api/files/:id                                   admin
DELETE /api/files/:id                                   admin
POST   /api/files/uploadList/:id                        admin
GET    /api/files/options/:id/file                      user
GET    /api/campaign-settings                           user + useCampaigns
POST   /api/campaign-settings                           admin + useCampaigns
GET    /api/campaigns                                   user + useCampaigns
GET    /api/campaigns/:id                               user + useCampaigns
GET    /api/campaigns/:id/shippings                     user + useCampaigns
POST   /api/campaigns                                   admin + useCampaigns
PUT    /api/campaigns/:id                               admin + useCampaigns
DELETE /api/campaigns/:id                               admin + useCampaigns
POST   /api/campaigns/:id/cancel                        admin + useCampaigns
POST   /api/campaigns/:id/restart                       admin + useCampaigns
POST   /api/campaigns/:id/media-upload                  admin + useCampaigns
DELETE /api/campaigns/:id/media-upload                  admin + useCampaigns
GET    /api/tags                                        user
GET    /api/tags/list                                   user
GET    /api/tags/kanban                                 user + useKanban
GET    /api/tags/:id                                    user
POST   /api/tags                                        user
PUT    /api/tags/:id                                    user
DELETE /api/tags/:id                                    user
POST   /api/tags/sync                                   user
GET    /api/ticket/kanban                               user + useKanban
PUT    /api/ticket-tags/:ticketId/:tagId                user
DELETE /api/ticket-tags/:ticketId/:tagId                user
DELETE /api/ticket-tags/:ticketId                       user
GET    /api/closing-reasons                             user
GET    /api/closing-reasons/:id                         user
POST   /api/closing-reasons                             admin
PUT    /api/closing-reasons/:id                         admin
DELETE /api/closing-reasons/:id                         admin
GET    /api/custom-fields                               user
GET    /api/custom-fields/:id                           user
POST   /api/custom-fields                               admin
PUT    /api/custom-fields/:id                           admin
DELETE /api/custom-fields/:id                           admin
GET    /api/quick-messages                              user
GET    /api/quick-messages/list                         user
GET    /api/quick-messages/:id                          user
POST   /api/quick-messages                              user
PUT    /api/quick-messages/:id                          user
DELETE /api/quick-messages/:id                          user
POST   /api/quick-messages/:id/media-upload             user
DELETE /api/quick-messages/:id/media-upload             user
GET    /api/quick-messages/:id/media                    user
GET    /api/macros                                      user
GET    /api/macros/list                                 user
GET    /api/macros/:id                                  user
POST   /api/macros                                      user
PUT    /api/macros/:id                                  user
DELETE /api/macros/:id                                  user
POST   /api/macros/:id/run                              user
GET    /api/schedules                                   user + useSchedules
GET    /api/schedules/connection                        user + useSchedules
GET    /api/schedules/:id                               user + useSchedules
POST   /api/schedules                                   user + useSchedules
PUT    /api/schedules/:id                               user + useSchedules
DELETE /api/schedules/:id                               user + useSchedules
POST   /api/schedules/:id/media-upload                  user + useSchedules
DELETE /api/schedules/:id/media-upload                  user + useSchedules
GET    /api/schedules/:id/media                         user + useSchedules
GET    /api/queueIntegration                            user + useIntegrations
GET    /api/queueIntegration/:id                        user + useIntegrations
POST   /api/queueIntegration                            user + useIntegrations
POST   /api/queueIntegration/testSession                user + useIntegrations
GET    /api/queueIntegration/:id/secret                 admin + useIntegrations
POST   /api/queueIntegration/:id/secret                 admin + useIntegrations
PUT    /api/queueIntegration/:id                        user + useIntegrations
DELETE /api/queueIntegration/:id                        user + useIntegrations
GET    /api/prompt                                      user + useOpenAi
GET    /api/prompt/:id                                  user + useOpenAi
POST   /api/prompt                                      admin + useOpenAi
POST   /api/prompt/test                                 admin + useOpenAi
PUT    /api/prompt/:id                                  admin + useOpenAi
DELETE /api/prompt/:id                                  admin + useOpenAi
GET    /api/dashboard                                   admin
GET    /api/dashboard/ticketsUsers                      admin
GET    /api/dashboard/ticketsDay                        admin
GET    /api/dashboard/ticketsChannel                    admin
GET    /api/dashboard/closing                           admin
GET    /api/dashboard/sourceTracking                    admin
GET    /api/dashboard/export                            admin
GET    /api/users/me/presence                           user
PUT    /api/users/me/presence                           user
GET    /api/live                                        supervisor
GET    /api/chats                                       user + useInternalChat
GET    /api/chats/:id                                   user + useInternalChat
POST   /api/chats                                       user + useInternalChat
PUT    /api/chats/:id                                   user + useInternalChat
DELETE /api/chats/:id                                   user + useInternalChat
GET    /api/chats/:id/messages                          user + useInternalChat
POST   /api/chats/:id/messages                          user + useInternalChat
POST   /api/chats/:id/read                              user + useInternalChat
GET    /api/announcements                               user
GET    /api/announcements/feed                          user
POST   /api/announcements/seen                          user
GET    /api/announcements/:id                           user
POST   /api/announcements                               super
PUT    /api/announcements/:id                           super
DELETE /api/announcements/:id                           super
POST   /api/announcements/:id/media-upload              super
DELETE /api/announcements/:id/media-upload              super
GET    /api/announcements/:id/media                     user
GET    /api/push/public-key                             user
POST   /api/push/subscriptions                          user
POST   /api/push/subscriptions/status                   user
POST   /api/push/unsubscribe                            user
POST   /api/push/test                                   user
GET    /api/sla-policies                                admin
GET    /api/sla-policies/:id                            admin
POST   /api/sla-policies                                admin
PUT    /api/sla-policies/:id                            admin
DELETE /api/sla-policies/:id                            admin
GET    /api/sla-breaches                                user
GET    /api/dashboard/sla                               admin
GET    /api/webhooks                                    admin
GET    /api/webhooks/:id                                admin
POST   /api/webhooks                                    admin
PUT    /api/webhooks/:id                                admin
DELETE /api/webhooks/:id                                admin
GET    /api/webhooks/:id/secret                         admin
POST   /api/webhooks/:id/secret                         admin
GET    /api/webhooks/:id/deliveries                     admin
POST   /api/webhooks/:id/deliveries/:deliveryId/resend  admin
GET    /api/whatsapp/:id/health                         admin
GET    /api/connection-alerts                           admin
GET    /api/invoices/all                                admin
POST   /api/subscription                                admin
POST   /api/asaas/subscriptions                         admin
GET    /api/asaas/subscriptions/link                    admin
GET    /api/api-tokens                                  user
POST   /api/api-tokens                                  user
DELETE /api/api-tokens/:id                              user
GET    /api/api-tokens/company                          admin
POST   /api/api-tokens/company                          admin
DELETE /api/api-tokens/company/:id                      admin
GET    /api/audit-log                                   admin
GET    /api/audit-log.csv                               admin
GET    /api/contacts/:id/export                         admin
POST   /api/contacts/:id/erase                          admin
GET    /api/contacts/:id/consent                        user
GET    /api/privacy/opted-out                           user
GET    /api/settings/privacy                            admin
PUT    /api/settings/privacy                            admin
GET    /api/privacy/retention/preview                   admin
POST   /api/privacy/retention/run                       admin
POST   /api/company-imports/whaticket                   super
POST   /api/company-exports                             admin
GET    /api/company-exports                             admin
GET    /api/company-exports/:id                         admin
GET    /api/company-exports/:id/archive                 admin
POST   /api/company-imports                             super
`.trim();
