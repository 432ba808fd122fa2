import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { SECRET_MASK, QUEUE_INTEGRATION_PAGE_SIZE } from '@recado/contracts';
import { queueIntegrations, queues } from '../../db/schema/index.js';
import {
  collectEvents,
  nextEvent,
  testApp,
  unique,
  type Session,
  expectError,
} from '../../../test/helpers.js';

const t = await testApp();
const db = t.database.db;

const PRIVATE_KEY =
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC-secret-part\n-----END PRIVATE KEY-----\n';
const serviceAccount = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'recado-agent',
    client_email: 'bot@recado-agent.iam.gserviceaccount.com',
    private_key: PRIVATE_KEY,
    ...over,
  });

const typebot = (over: Record<string, unknown> = {}) => ({
  type: 'typebot',
  name: unique('Typebot '),
  urlN8N: 'https://typebot.example.com',
  typebotSlug: 'my-flow',
  ...over,
});

const create = async (s: Session, body: Record<string, unknown>) => {
  const res = await t.as(s).post('/queueIntegration', body);
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

async function planWithout() {
  const su = await t.superuser();
  const res = await t.as(su).post('/plans', {
    name: unique('Sem integrações '),
    users: 5,
    connections: 2,
    queues: 3,
    value: 10,
    useIntegrations: false,
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: number };
}

describe('queue integrations CRUD', () => {
  test('typebot: defaults, name copied into projectName, events to the company; edit and delete', async () => {
    const c = await t.company('Crud');
    const socket = await t.socket(c.admin.token);
    const event = `company-${c.id}-queueIntegration`;
    const created = nextEvent<{ action: string; queueIntegration: { id: number } }>(socket, event);
    const it = await create(c.admin, typebot({ name: '  Fluxo vendas ', projectName: 'ignored' }));
    expect(it).toMatchObject({
      type: 'typebot',
      name: 'Fluxo vendas',
      projectName: 'Fluxo vendas',
      urlN8N: 'https://typebot.example.com',
      typebotSlug: 'my-flow',
      typebotExpires: 1,
      typebotDelayMessage: 1000,
      typebotKeywordFinish: '',
      jsonContent: '',
      companyId: c.id,
    });
    expect(await created).toMatchObject({ action: 'create', queueIntegration: { id: it.id } });
    expect(await (await t.as(c.admin).get(`/queueIntegration/${it.id}`)).json()).toMatchObject({
      id: it.id,
      name: 'Fluxo vendas',
    });

    const updated = nextEvent<{ action: string; queueIntegration: { projectName: string } }>(socket, event);
    const res = await t.as(c.admin).put(
      `/queueIntegration/${it.id}`,
      typebot({
        name: 'Fluxo suporte',
        typebotExpires: 5,
        typebotDelayMessage: 2500,
        typebotKeywordFinish: '#sair',
        typebotKeywordRestart: '#reiniciar',
        typebotUnknownMessage: 'Não entendi',
        typebotRestartMessage: 'Recomeçando',
      }),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: 'Fluxo suporte',
      projectName: 'Fluxo suporte',
      typebotExpires: 5,
      typebotDelayMessage: 2500,
      typebotKeywordFinish: '#sair',
      typebotKeywordRestart: '#reiniciar',
      typebotUnknownMessage: 'Não entendi',
      typebotRestartMessage: 'Recomeçando',
    });
    expect(await updated).toMatchObject({
      action: 'update',
      queueIntegration: { projectName: 'Fluxo suporte' },
    });

    // Becoming an n8n hook drops the typebot fields; the name is still copied.
    const n8n = await (
      await t.as(c.admin).put(`/queueIntegration/${it.id}`, {
        type: 'n8n',
        name: 'Automação',
        urlN8N: 'http://n8n.local:5678/webhook/abc',
      })
    ).json();
    expect(n8n).toMatchObject({
      type: 'n8n',
      projectName: 'Automação',
      typebotSlug: '',
      typebotKeywordFinish: '',
    });

    const deleted = nextEvent<{ action: string; integrationId: number }>(socket, event);
    expect((await t.as(c.admin).del(`/queueIntegration/${it.id}`)).status).toBe(200);
    expect(await deleted).toEqual({ action: 'delete', integrationId: it.id });
    await expectError(await t.as(c.admin).get(`/queueIntegration/${it.id}`), 404, 'ERR_NO_INTEGRATION_FOUND');
    await expectError(await t.as(c.admin).del(`/queueIntegration/${it.id}`), 404, 'ERR_NO_INTEGRATION_FOUND');
  });

  test('n8n and webhook copy the name into projectName', async () => {
    const c = await t.company('Hooks');
    for (const type of ['n8n', 'webhook']) {
      const it = await create(c.admin, { type, name: `Hook ${type}`, urlN8N: 'https://hooks.example.com/x' });
      expect(it).toMatchObject({ type, name: `Hook ${type}`, projectName: `Hook ${type}` });
    }
  });

  test('search by name and paging with hasMore', async () => {
    const c = await t.company('Paging');
    const A = t.as(c.admin);
    for (let i = 0; i < QUEUE_INTEGRATION_PAGE_SIZE + 2; i++)
      await create(c.admin, typebot({ name: `Flow ${String(i).padStart(2, '0')}` }));
    await create(c.admin, { type: 'webhook', name: 'Especial 100%', urlN8N: 'https://w.example.com' });
    const p1 = await (await A.get('/queueIntegration/')).json();
    expect(p1.queueIntegrations).toHaveLength(QUEUE_INTEGRATION_PAGE_SIZE);
    expect(p1.hasMore).toBe(true);
    expect(p1.queueIntegrations[0].name).toBe('Especial 100%');
    const p2 = await (await A.get('/queueIntegration/?pageNumber=2')).json();
    expect(p2.queueIntegrations).toHaveLength(3);
    expect(p2.hasMore).toBe(false);
    const found = await (await A.get('/queueIntegration/?searchParam=FLOW%2021')).json();
    expect(found.queueIntegrations.map((x: { name: string }) => x.name)).toEqual(['Flow 21']);
    // % is taken literally.
    const pct = await (await A.get('/queueIntegration/?searchParam=100%25')).json();
    expect(pct.queueIntegrations.map((x: { name: string }) => x.name)).toEqual(['Especial 100%']);
    expect((await (await A.get('/queueIntegration?searchParam=nothing')).json()).queueIntegrations).toEqual(
      [],
    );
  });
});

describe('validation', () => {
  test('bad input per type answers 400 ERR_VALIDATION, never 500', async () => {
    const c = await t.company('Validation');
    const A = t.as(c.admin);
    const bad: Record<string, unknown>[] = [
      {},
      { name: 'No type' },
      { type: 'zapier', name: 'Unknown', urlN8N: 'https://x.example.com' },
      // name 2 to 50
      typebot({ name: 'A' }),
      typebot({ name: 'x'.repeat(51) }),
      typebot({ name: '   ' }),
      // n8n, webhook and typebot need a url
      { type: 'n8n', name: 'No url' },
      { type: 'webhook', name: 'Bad url', urlN8N: 'not a url' },
      { type: 'webhook', name: 'Bad scheme', urlN8N: 'ftp://files.example.com' },
      typebot({ urlN8N: '' }),
      // typebot needs a slug
      typebot({ typebotSlug: '' }),
      typebot({ typebotSlug: undefined }),
      typebot({ typebotDelayMessage: -1 }),
      typebot({ typebotExpires: 'soon' }),
      // dialogflow: project, language of the list, a service account
      { type: 'dialogflow', name: 'Agent', language: 'pt-BR', jsonContent: serviceAccount() },
      { type: 'dialogflow', name: 'Agent', projectName: 'p', language: 'fr', jsonContent: serviceAccount() },
      { type: 'dialogflow', name: 'Agent', projectName: 'p', language: 'en', jsonContent: '{not json' },
      {
        type: 'dialogflow',
        name: 'Agent',
        projectName: 'p',
        language: 'en',
        jsonContent: serviceAccount({ private_key: undefined }),
      },
      {
        type: 'dialogflow',
        name: 'Agent',
        projectName: 'p',
        language: 'en',
        jsonContent: JSON.stringify({ project_id: 'p' }),
      },
    ];
    for (const body of bad) {
      await expectError(await A.post('/queueIntegration', body), 400, 'ERR_VALIDATION');
    }
    const it = await create(c.admin, typebot());
    for (const body of bad.slice(3)) {
      await expectError(await A.put(`/queueIntegration/${it.id}`, body), 400, 'ERR_VALIDATION');
    }
    await expectError(await A.get('/queueIntegration/abc'), 400, 'ERR_VALIDATION');
    await expectError(await A.put('/queueIntegration/0', typebot()), 400, 'ERR_VALIDATION');
    await expectError(await A.del('/queueIntegration/99999999999'), 400, 'ERR_VALIDATION');
    await expectError(await A.get('/queueIntegration/?pageNumber=0'), 400, 'ERR_VALIDATION');
    await expectError(
      await t.request('POST', '/queueIntegration', { token: c.admin.token, body: '{"type":', headers: {} }),
      400,
      'ERR_VALIDATION',
    );
    // The URLs the server will call: no private, loopback or cloud metadata host (issue 18.1), on create
    // and on update; a query string is fine (n8n and webhook URLs often carry one).
    for (const urlN8N of [
      'http://127.0.0.1:5678/webhook/abc',
      'http://localhost:3000/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.8/hook',
      'http://[::1]/x',
    ]) {
      await expectError(await A.post('/queueIntegration', typebot({ urlN8N })), 400, 'ERR_URL_NOT_ALLOWED');
      await expectError(
        await A.put(`/queueIntegration/${it.id}`, { type: 'webhook', name: 'Hook', urlN8N }),
        400,
        'ERR_URL_NOT_ALLOWED',
      );
    }
    await create(c.admin, {
      type: 'webhook',
      name: 'Query ok',
      urlN8N: 'https://hooks.example.com/x?token=1',
    });
    // A dialogflow integration without its service account cannot be created.
    await expectError(
      await A.post('/queueIntegration', {
        type: 'dialogflow',
        name: 'Agent',
        projectName: 'p',
        language: 'en',
      }),
      400,
      'ERR_INTEGRATION_SECRET_REQUIRED',
    );
    await expectError(
      await A.post('/queueIntegration', {
        type: 'dialogflow',
        name: 'Agent',
        projectName: 'p',
        language: 'en',
        jsonContent: SECRET_MASK,
      }),
      400,
      'ERR_INTEGRATION_SECRET_REQUIRED',
    );
    await expectError(await A.get(`/queueIntegration/${it.id + 1000}`), 404, 'ERR_NO_INTEGRATION_FOUND');
  });
});

describe('dialogflow secrets', () => {
  test('the service account is sealed at rest and never returned; an edit without it keeps it', async () => {
    const c = await t.company('Secrets');
    const A = t.as(c.admin);
    const socket = await t.socket(c.admin.token);
    const heard = collectEvents(socket, `company-${c.id}-queueIntegration`, 600);
    const res = await A.post('/queueIntegration', {
      type: 'dialogflow',
      name: 'Agente',
      projectName: 'recado-agent',
      language: 'pt-BR',
      jsonContent: serviceAccount(),
    });
    const text = await res.text();
    expect(res.status, text).toBe(201);
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain('secret-part');
    const it = JSON.parse(text);
    expect(it).toMatchObject({
      type: 'dialogflow',
      name: 'Agente',
      projectName: 'recado-agent',
      language: 'pt-BR',
      jsonContent: SECRET_MASK,
      clientEmail: 'bot@recado-agent.iam.gserviceaccount.com',
      urlN8N: '',
    });
    for (const body of [
      await (await A.get(`/queueIntegration/${it.id}`)).text(),
      await (await A.get('/queueIntegration/')).text(),
      JSON.stringify(await heard),
    ]) {
      expect(body).toContain('Agente');
      expect(body).not.toContain('secret-part');
    }
    const [stored] = await db.select().from(queueIntegrations).where(eq(queueIntegrations.id, it.id));
    expect(stored!.jsonContentSealed).toBeTruthy();
    expect(stored!.jsonContentSealed).not.toContain('secret-part');
    expect(t.app.services.box.open(stored!.jsonContentSealed!)).toBe(serviceAccount());

    // The edit form sends the mask back (or nothing): the stored account stays.
    for (const jsonContent of [SECRET_MASK, undefined]) {
      const edited = await A.put(`/queueIntegration/${it.id}`, {
        type: 'dialogflow',
        name: 'Agente 2',
        projectName: 'recado-agent',
        language: 'en',
        jsonContent,
      });
      expect(edited.status).toBe(200);
      expect(await edited.json()).toMatchObject({
        name: 'Agente 2',
        language: 'en',
        jsonContent: SECRET_MASK,
      });
      const [again] = await db.select().from(queueIntegrations).where(eq(queueIntegrations.id, it.id));
      expect(t.app.services.box.open(again!.jsonContentSealed!)).toBe(serviceAccount());
    }
    // A new account replaces it; becoming a webhook forgets it.
    const replaced = serviceAccount({ client_email: 'other@x.iam.gserviceaccount.com' });
    const r2 = await (
      await A.put(`/queueIntegration/${it.id}`, {
        type: 'dialogflow',
        name: 'Agente 3',
        projectName: 'p2',
        language: 'es',
        jsonContent: replaced,
      })
    ).json();
    expect(r2).toMatchObject({ clientEmail: 'other@x.iam.gserviceaccount.com', projectName: 'p2' });
    const hook = await (
      await A.put(`/queueIntegration/${it.id}`, {
        type: 'webhook',
        name: 'Agora hook',
        urlN8N: 'https://h.example.com',
      })
    ).json();
    expect(hook).toMatchObject({
      jsonContent: '',
      clientEmail: null,
      projectName: 'Agora hook',
      language: '',
    });
    const [gone] = await db.select().from(queueIntegrations).where(eq(queueIntegrations.id, it.id));
    expect(gone!.jsonContentSealed).toBeNull();
  });

  test('testSession validates its input; a key Google cannot use answers ERR_DIALOGFLOW_SESSION, never a fake success', async () => {
    const c = await t.company('TestSession');
    const A = t.as(c.admin);
    const ok = { projectName: 'recado-agent', jsonContent: serviceAccount(), language: 'pt-BR' };
    for (const body of [
      {},
      { ...ok, projectName: '' },
      { ...ok, language: 'fr' },
      { ...ok, jsonContent: 'nope' },
      { ...ok, jsonContent: serviceAccount({ client_email: '' }) },
      { ...ok, jsonContent: SECRET_MASK },
    ])
      await expectError(await A.post('/queueIntegration/testSession', body), 400, 'ERR_VALIDATION');
    const res = await A.post('/queueIntegration/testSession', ok);
    // The key cannot sign the token request: refused before any call (automation/integrations.test.ts has
    // the calls to the local Dialogflow and Google token servers).
    const body = await expectError(res, 422, 'ERR_DIALOGFLOW_SESSION');
    expect(body.message).toMatch(/chave privada/);
    expect(JSON.stringify(body)).not.toContain('secret-part');
  });
});

describe('permissions and plan', () => {
  test('only admins write; users of the company read', async () => {
    const c = await t.company('Roles');
    const user = await t.user(c.admin, 'user');
    const supervisor = await t.user(c.admin, 'supervisor');
    const it = await create(c.admin, typebot());
    for (const s of [user, supervisor]) {
      const U = t.as(s);
      await expectError(await U.post('/queueIntegration', typebot()), 403, 'ERR_NO_PERMISSION');
      await expectError(await U.put(`/queueIntegration/${it.id}`, typebot()), 403, 'ERR_NO_PERMISSION');
      await expectError(await U.del(`/queueIntegration/${it.id}`), 403, 'ERR_NO_PERMISSION');
      await expectError(
        await U.post('/queueIntegration/testSession', {
          projectName: 'p',
          jsonContent: serviceAccount(),
          language: 'en',
        }),
        403,
        'ERR_NO_PERMISSION',
      );
      expect((await U.get(`/queueIntegration/${it.id}`)).status).toBe(200);
      expect((await (await U.get('/queueIntegration/')).json()).queueIntegrations).toHaveLength(1);
    }
    expect((await t.as(c.admin).get(`/queueIntegration/${it.id}`)).status).toBe(200);
    await expectError(await t.request('GET', '/queueIntegration/'), 401, 'ERR_SESSION_EXPIRED');
  });

  test('a company whose plan has no useIntegrations gets ERR_NO_PERMISSION from every call', async () => {
    const plan = await planWithout();
    const c = await t.company('NoPlan', { planId: plan.id });
    const A = t.as(c.admin);
    await expectError(await A.get('/queueIntegration/'), 403, 'ERR_NO_PERMISSION');
    await expectError(await A.get('/queueIntegration/1'), 403, 'ERR_NO_PERMISSION');
    await expectError(await A.post('/queueIntegration', typebot()), 403, 'ERR_NO_PERMISSION');
    await expectError(await A.put('/queueIntegration/1', typebot()), 403, 'ERR_NO_PERMISSION');
    await expectError(await A.del('/queueIntegration/1'), 403, 'ERR_NO_PERMISSION');
    await expectError(
      await A.post('/queueIntegration/testSession', {
        projectName: 'p',
        jsonContent: serviceAccount(),
        language: 'en',
      }),
      403,
      'ERR_NO_PERMISSION',
    );
    const [count] = await db.select().from(queueIntegrations).where(eq(queueIntegrations.companyId, c.id));
    expect(count).toBeUndefined();
  });
});

describe('queues and tenancy', () => {
  test("a queue takes its own company's integration, never another's; deleting it clears the queue", async () => {
    const a = await t.company('QueueA');
    const b = await t.company('QueueB');
    const itA = await create(a.admin, typebot());
    const itB = await create(b.admin, typebot());
    const A = t.as(a.admin);
    const queue = await (
      await A.post('/queue', { name: 'Vendas', color: '#F44336', integrationId: itA.id })
    ).json();
    expect(queue.integrationId).toBe(itA.id);
    await expectError(
      await A.post('/queue', { name: 'Suporte', color: '#2196F3', integrationId: itB.id }),
      404,
      'ERR_NO_INTEGRATION_FOUND',
    );
    await expectError(
      await A.put(`/queue/${queue.id}`, { integrationId: itB.id }),
      404,
      'ERR_NO_INTEGRATION_FOUND',
    );
    await expectError(
      await A.put(`/queue/${queue.id}`, { integrationId: 987654 }),
      404,
      'ERR_NO_INTEGRATION_FOUND',
    );
    expect((await (await A.get(`/queue/${queue.id}`)).json()).integrationId).toBe(itA.id);
    expect(
      (await (await A.put(`/queue/${queue.id}`, { integrationId: null })).json()).integrationId,
    ).toBeNull();
    expect((await (await A.put(`/queue/${queue.id}`, { integrationId: itA.id })).json()).integrationId).toBe(
      itA.id,
    );

    const socket = await t.socket(a.admin.token);
    const queueEvent = nextEvent<{ action: string; queue: { id: number; integrationId: number | null } }>(
      socket,
      `company-${a.id}-queue`,
    );
    expect((await A.del(`/queueIntegration/${itA.id}`)).status).toBe(200);
    expect(await queueEvent).toMatchObject({
      action: 'update',
      queue: { id: queue.id, integrationId: null },
    });
    const [row] = await db.select().from(queues).where(eq(queues.id, queue.id));
    expect(row!.integrationId).toBeNull();
  });

  test("another company cannot read, change, delete or hear a company's integrations", async () => {
    const a = await t.company('TenantA');
    const b = await t.company('TenantB');
    const sb = await t.socket(b.admin.token);
    const heardByB: unknown[] = [];
    sb.on(`company-${a.id}-queueIntegration`, (p: unknown) => heardByB.push(p));
    // B asks to join A's rooms: the server decides, and refuses.
    sb.emit('join', `company-${a.id}`);
    sb.emit('join', `company-${a.id}-queueIntegration`);
    const sa = await t.socket(a.admin.token);

    const created = nextEvent(sa, `company-${a.id}-queueIntegration`);
    const itA = await create(a.admin, typebot({ name: 'Only A' }));
    await created;
    const itB = await create(b.admin, typebot({ name: 'Only B' }));

    const B = t.as(b.admin);
    await expectError(await B.get(`/queueIntegration/${itA.id}`), 404, 'ERR_NO_INTEGRATION_FOUND');
    await expectError(
      await B.put(`/queueIntegration/${itA.id}`, typebot({ name: 'Hijack' })),
      404,
      'ERR_NO_INTEGRATION_FOUND',
    );
    await expectError(await B.del(`/queueIntegration/${itA.id}`), 404, 'ERR_NO_INTEGRATION_FOUND');
    const listB = await (await B.get('/queueIntegration/?companyId=' + a.id)).json();
    expect(listB.queueIntegrations.map((x: { id: number }) => x.id)).toEqual([itB.id]);

    const updated = nextEvent(sa, `company-${a.id}-queueIntegration`);
    await t.as(a.admin).put(`/queueIntegration/${itA.id}`, typebot({ name: 'Only A 2' }));
    await updated;
    const quiet = await collectEvents(sb, `company-${a.id}-queueIntegration`, 400);
    expect(quiet).toEqual([]);
    expect(heardByB).toEqual([]);
    expect((await (await t.as(a.admin).get(`/queueIntegration/${itA.id}`)).json()).name).toBe('Only A 2');
  });
});
