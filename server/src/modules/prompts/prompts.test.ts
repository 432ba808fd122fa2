import { testConfig } from '../../../test/config.js';
import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { SECRET_MASK } from '@recado/contracts';
import { prompts } from '../../db/schema/index.js';
import { buildApp } from '../../app.js';
import { seed } from '../../db/seed.js';
import {
  SUPER,
  collectEvents,
  freshDatabase,
  nextEvent,
  testApp,
  unique,
  type Session,
  expectError,
} from '../../../test/helpers.js';

const t = await testApp();
const db = t.database.db;

/** Plan 3 (Ouro) of the seed has useOpenAi; the helper's default plan 5 is checked below. */
const OPENAI_PLAN = 3;
const SECRET = 'sk-test-SECRET-never-leaves-0123456789';
const LONG_PROMPT =
  'Você é um assistente de atendimento da empresa. Responda com educação, de forma breve e objetiva.';

let colorSeq = 0;
const createQueue = async (admin: Session, name = unique('Fila ')) => {
  const color = `#00AA${(++colorSeq).toString(16).padStart(2, '0').toUpperCase()}`;
  const res = await t.as(admin).post('/queue', { name, color });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: number; name: string };
};

const validPrompt = (queueId: number, over: Record<string, unknown> = {}) => ({
  name: unique('Assistente '),
  prompt: LONG_PROMPT,
  model: 'gpt-3.5-turbo-1106',
  maxTokens: 100,
  temperature: 1,
  apiKey: SECRET,
  queueId,
  maxMessages: 10,
  ...over,
});

async function setup(name: string) {
  const c = await t.company(name, { planId: OPENAI_PLAN });
  const queue = await createQueue(c.admin);
  return { ...c, queue };
}

const createPrompt = async (admin: Session, body: Record<string, unknown>) => {
  const res = await t.as(admin).post('/prompt', body);
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

describe('prompts API', () => {
  test('create, read, list, update and delete; the key is sealed at rest and answered masked', async () => {
    const a = await setup('PrCrud');
    const p = await createPrompt(a.admin, validPrompt(a.queue.id, { name: 'Assistente de vendas' }));
    expect(p).toMatchObject({
      name: 'Assistente de vendas',
      prompt: LONG_PROMPT,
      model: 'gpt-3.5-turbo-1106',
      maxTokens: 100,
      temperature: 1,
      apiKey: SECRET_MASK,
      queueId: a.queue.id,
      maxMessages: 10,
      companyId: a.id,
      queue: { id: a.queue.id, name: a.queue.name },
    });
    // At rest: sealed, not the key itself; the service opens it for the runtime.
    const [stored] = await db.select().from(prompts).where(eq(prompts.id, p.id));
    expect(stored!.apiKeySealed).not.toContain(SECRET);
    expect(await t.app.services.prompts.apiKeyOf(a.id, p.id)).toBe(SECRET);

    expect(await (await t.as(a.admin).get(`/prompt/${p.id}`)).json()).toEqual(p);
    const list = await (await t.as(a.admin).get('/prompt')).json();
    expect(list.prompts.map((x: { id: number }) => x.id)).toEqual([p.id]);

    // The mask sent back, or no key at all, keeps the stored key.
    const q2 = await createQueue(a.admin);
    let res = await t.as(a.admin).put(`/prompt/${p.id}`, {
      name: 'Assistente renomeado',
      apiKey: SECRET_MASK,
      temperature: 0.3,
      model: 'gpt-4o-mini',
      queueId: q2.id,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({
      name: 'Assistente renomeado',
      temperature: expect.closeTo(0.3, 5),
      model: 'gpt-4o-mini',
      queueId: q2.id,
      queue: { id: q2.id },
      apiKey: SECRET_MASK,
    });
    expect(await t.app.services.prompts.apiKeyOf(a.id, p.id)).toBe(SECRET);
    res = await t.as(a.admin).put(`/prompt/${p.id}`, { maxTokens: 200 });
    expect((await res.json()).maxTokens).toBe(200);
    expect(await t.app.services.prompts.apiKeyOf(a.id, p.id)).toBe(SECRET);
    // A new key replaces it.
    await t.as(a.admin).put(`/prompt/${p.id}`, { apiKey: 'sk-another-key' });
    expect(await t.app.services.prompts.apiKeyOf(a.id, p.id)).toBe('sk-another-key');

    // A queue using the prompt loses it when the prompt is deleted.
    await t.as(a.admin).put(`/queue/${q2.id}`, { promptId: p.id });
    const del = await t.as(a.admin).del(`/prompt/${p.id}`);
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({ message: expect.any(String) });
    await expectError(await t.as(a.admin).get(`/prompt/${p.id}`), 404, 'ERR_NOT_FOUND');
    expect((await (await t.as(a.admin).get(`/queue/${q2.id}`)).json()).promptId).toBeNull();
    await expectError(await t.as(a.admin).del(`/prompt/${p.id}`), 404, 'ERR_NOT_FOUND');
  });

  test("deleting a prompt's queue deletes the prompt, and other queues that used it lose it", async () => {
    const a = await setup('PrQueueGone');
    const p = await createPrompt(a.admin, validPrompt(a.queue.id));
    const other = await createQueue(a.admin);
    expect((await t.as(a.admin).put(`/queue/${other.id}`, { promptId: p.id })).status).toBe(200);
    expect((await t.as(a.admin).del(`/queue/${a.queue.id}`)).status).toBe(200);
    await expectError(await t.as(a.admin).get(`/prompt/${p.id}`), 404, 'ERR_NOT_FOUND');
    expect((await (await t.as(a.admin).get(`/queue/${other.id}`)).json()).promptId).toBeNull();
  });

  test('every route refuses bad input with 400 ERR_VALIDATION, never 500', async () => {
    const a = await setup('PrBad');
    const good = validPrompt(a.queue.id);
    const bad: Record<string, unknown>[] = [
      {},
      { ...good, name: 'abcd' }, // under 5
      { ...good, name: 'x'.repeat(101) },
      { ...good, prompt: 'curto demais' }, // under 50
      { ...good, model: 'gpt-5-ultra' },
      { ...good, maxTokens: 'muitos' },
      { ...good, maxTokens: 0 },
      { ...good, temperature: 1.5 },
      { ...good, temperature: -0.1 },
      { ...good, apiKey: '' },
      { ...good, apiKey: undefined },
      { ...good, queueId: undefined }, // "submitting with no queue shows an error"
      { ...good, queueId: 'abc' },
      { ...good, queueId: 99999999999 },
      { ...good, maxMessages: undefined },
      { ...good, maxMessages: -1 },
    ];
    for (const body of bad)
      await expectError(await t.as(a.admin).post('/prompt', body), 400, 'ERR_VALIDATION');
    // The mask is not a key.
    await expectError(
      await t.as(a.admin).post('/prompt', { ...good, apiKey: SECRET_MASK }),
      400,
      'ERR_VALIDATION',
    );
    const p = await createPrompt(a.admin, good);
    for (const body of [{ name: 'abc' }, { temperature: 2 }, { queueId: 0 }, { prompt: 'x' }])
      await expectError(await t.as(a.admin).put(`/prompt/${p.id}`, body), 400, 'ERR_VALIDATION');
    for (const id of ['abc', '0', '-1', '99999999999']) {
      await expectError(await t.as(a.admin).get(`/prompt/${id}`), 400, 'ERR_VALIDATION');
      await expectError(
        await t.as(a.admin).put(`/prompt/${id}`, { name: 'Nome válido' }),
        400,
        'ERR_VALIDATION',
      );
      await expectError(await t.as(a.admin).del(`/prompt/${id}`), 400, 'ERR_VALIDATION');
    }
    await expectError(await t.as(a.admin).get('/prompt/424242'), 404, 'ERR_NOT_FOUND');
    // A queue that does not exist.
    await expectError(
      await t.as(a.admin).post('/prompt', { ...good, queueId: 424242 }),
      404,
      'ERR_NO_QUEUE_FOUND',
    );
    // Nothing bad was stored.
    expect((await (await t.as(a.admin).get('/prompt')).json()).prompts).toHaveLength(1);
  });

  test('users of the company read prompts; only admins change them', async () => {
    const a = await setup('PrRoles');
    const p = await createPrompt(a.admin, validPrompt(a.queue.id));
    for (const profile of ['user', 'supervisor'] as const) {
      const u = await t.user(a.admin, profile);
      expect((await t.as(u).get(`/prompt/${p.id}`)).status).toBe(200);
      expect((await (await t.as(u).get('/prompt')).json()).prompts).toHaveLength(1);
      await expectError(await t.as(u).post('/prompt', validPrompt(a.queue.id)), 403, 'ERR_NO_PERMISSION');
      await expectError(await t.as(u).put(`/prompt/${p.id}`, { maxTokens: 5 }), 403, 'ERR_NO_PERMISSION');
      await expectError(await t.as(u).del(`/prompt/${p.id}`), 403, 'ERR_NO_PERMISSION');
    }
    expect((await (await t.as(a.admin).get(`/prompt/${p.id}`)).json()).maxTokens).toBe(100);
  });

  test('a plan without useOpenAi gets ERR_NO_PERMISSION from every route', async () => {
    // The helper's default plan 5 is checked: if it had the flag, the refusal below would not be proven.
    const c = await t.company('PrNoPlan', { planId: 1 });
    const queue = await createQueue(c.admin);
    await expectError(await t.as(c.admin).get('/prompt'), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(c.admin).get('/prompt/1'), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(c.admin).post('/prompt', validPrompt(queue.id)), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(c.admin).put('/prompt/1', { maxTokens: 5 }), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(c.admin).del('/prompt/1'), 403, 'ERR_NO_PERMISSION');
    // The same company with a plan that has it is allowed.
    const su = await t.superuser();
    const res = await t.as(su).put(`/companies/${c.id}`, { planId: OPENAI_PLAN });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await t.as(c.admin).get('/prompt')).status).toBe(200);
  });

  test('another company cannot read, change, delete, point at, or hear about a prompt', async () => {
    const a = await setup('PrA');
    const b = await setup('PrB');
    const p = await createPrompt(a.admin, validPrompt(a.queue.id));
    await expectError(await t.as(b.admin).get(`/prompt/${p.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(
      await t.as(b.admin).put(`/prompt/${p.id}`, { name: 'Invasão total' }),
      404,
      'ERR_NOT_FOUND',
    );
    await expectError(await t.as(b.admin).del(`/prompt/${p.id}`), 404, 'ERR_NOT_FOUND');
    expect((await (await t.as(b.admin).get('/prompt')).json()).prompts).toEqual([]);
    // B cannot attach its prompt to A's queue, nor move its prompt there.
    await expectError(
      await t.as(b.admin).post('/prompt', validPrompt(a.queue.id)),
      404,
      'ERR_NO_QUEUE_FOUND',
    );
    const bp = await createPrompt(b.admin, validPrompt(b.queue.id));
    await expectError(
      await t.as(b.admin).put(`/prompt/${bp.id}`, { queueId: a.queue.id }),
      404,
      'ERR_NO_QUEUE_FOUND',
    );
    // A queue of B cannot use A's prompt, on create or update.
    await expectError(
      await t.as(b.admin).put(`/queue/${b.queue.id}`, { promptId: p.id }),
      404,
      'ERR_NOT_FOUND',
    );
    await expectError(
      await t.as(b.admin).post('/queue', { name: unique('Fila '), color: '#00BB01', promptId: p.id }),
      404,
      'ERR_NOT_FOUND',
    );
    // Its own prompt is fine.
    const ok = await t.as(b.admin).put(`/queue/${b.queue.id}`, { promptId: bp.id });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect((await ok.json()).promptId).toBe(bp.id);

    // Events reach only the company's own room, whatever B asks to join.
    const bSocket = await t.socket(b.admin.token);
    const aSocket = await t.socket(a.admin.token);
    bSocket.emit('join', `company-${a.id}`);
    bSocket.emit('joinCompany', a.id);
    const event = `company-${a.id}-prompt`;
    const bHeard = collectEvents(bSocket, event, 1500);
    const aHears = nextEvent<{ action: string; prompt: { id: number; apiKey: string } }>(
      aSocket,
      event,
      15_000,
    );
    await t.as(a.admin).put(`/prompt/${p.id}`, { name: 'Só a empresa A ouve' });
    const got = await aHears;
    expect(got).toMatchObject({ action: 'update', prompt: { id: p.id, apiKey: SECRET_MASK } });
    expect(JSON.stringify(got)).not.toContain(SECRET);
    expect(await bHeard).toEqual([]);
    expect((await (await t.as(a.admin).get(`/prompt/${p.id}`)).json()).name).toBe('Só a empresa A ouve');
  });
});

describe('prompts and the log', () => {
  test('the API key never appears in the log, even at trace level', async () => {
    const database = await freshDatabase();
    const { config } = testConfig({ LOG_LEVEL: 'trace' }, 'recado-prompt-');
    await seed(database.db, {
      superuserEmail: SUPER.email,
      superuserPassword: SUPER.password,
      demo: false,
      print: () => undefined,
    });
    let logged = '';
    const stream = new Writable({
      write(chunk, _enc, done) {
        logged += String(chunk);
        done();
      },
    });
    const built = await buildApp({ config, database, logger: { stream }, jobs: { autoStart: false } });
    try {
      const inject = async (method: 'GET' | 'POST' | 'PUT', url: string, token?: string, payload?: unknown) =>
        built.app.inject({
          method,
          url: `/api${url}`,
          headers: token ? { authorization: `Bearer ${token}` } : {},
          ...(payload !== undefined ? { payload: payload as object } : {}),
        });
      const su = (await inject('POST', '/auth/login', undefined, SUPER)).json().token as string;
      const email = `${unique('adm')}@log.test`;
      const company = await inject('POST', '/companies', su, {
        name: unique('PrLog'),
        email,
        planId: OPENAI_PLAN,
        dueDate: '2099-01-01',
        adminName: 'Log Admin',
        adminPassword: 'Admin@123',
      });
      expect(company.statusCode, company.body).toBe(201);
      const admin = (await inject('POST', '/auth/login', undefined, { email, password: 'Admin@123' })).json()
        .token as string;
      const queue = (await inject('POST', '/queue', admin, { name: 'Fila do log', color: '#112233' })).json();
      const created = await inject('POST', '/prompt', admin, validPrompt(queue.id));
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as number;
      // A failing request is logged too: the key must not ride along in its body.
      expect((await inject('POST', '/prompt', admin, validPrompt(queue.id, { name: 'x' }))).statusCode).toBe(
        400,
      );
      expect((await inject('PUT', `/prompt/${id}`, admin, { apiKey: SECRET })).statusCode).toBe(200);
      for (const r of [await inject('GET', `/prompt/${id}`, admin), await inject('GET', '/prompt', admin)])
        expect(r.body).not.toContain(SECRET);
      expect(logged.length).toBeGreaterThan(0);
      expect(logged).not.toContain(SECRET);
    } finally {
      await built.close();
      await database.drop();
    }
  });
});
