import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { testApp, type Session } from '../../../test/helpers.js';
import { OFFER_PNG, fakeTypebot } from '../../../test/fake-typebot.js';
import { fakeWebhook } from '../../../test/fake-webhook.js';
import { fakeDialogflow, serviceAccount } from '../../../test/fake-dialogflow.js';
import { newNumber } from '../bot/bot-test-kit.js';
import { automationKit } from './automation-test-kit.js';
import { and, eq } from 'drizzle-orm';
import { messages } from '../../db/schema/index.js';
import { bubbleReply, bubbleText, pickChoice, richTextToWhatsApp } from './typebot-runtime.js';
import { readDetectIntent } from './dialogflow-runtime.js';
import { HOOK_MAX_ATTEMPTS } from './hook-runtime.js';

const typebot = await fakeTypebot();
const hook = await fakeWebhook();
const df = await fakeDialogflow();
afterAll(() => Promise.all([typebot.close(), hook.close(), df.close()]));
const t = await testApp({
  env: {
    ALLOW_PRIVATE_URLS: 'true',
    DIALOGFLOW_API_URL: df.apiUrl,
    GOOGLE_TOKEN_URL: df.tokenUrl,
    PUBLIC_URL: 'https://recado.example.com',
  },
  // The tests run the due jobs themselves (no poller racing them).
  deps: { jobs: { autoStart: false } },
});
const k = automationKit(t);
const c = await t.company('Integr');
const other = await t.company('IntegrOther');

const defaultNext = typebot.state.next;
beforeEach(() => {
  typebot.state.broken = false;
  typebot.state.next = defaultNext;
  hook.state.status = 200;
});

type Ticket = Awaited<ReturnType<typeof k.ticketOf>>;

/** A connection whose only queue hands its tickets to a new integration of the company. */
async function integrationQueue(admin: Session, body: Record<string, unknown>) {
  const { whatsappId, queues } = await k.setup(admin, [{ name: `Fila ${newNumber()}`, greetingMessage: '' }]);
  const queueId = Object.values(queues)[0]!;
  const created = await t
    .as(admin)
    .post('/queueIntegration', { name: `I ${newNumber()}`.slice(0, 40), ...body });
  expect(created.status, await created.clone().text()).toBe(201);
  const { id: integrationId } = (await created.json()) as { id: number };
  expect((await t.as(admin).put(`/queue/${queueId}`, { integrationId })).status).toBe(200);
  return { whatsappId, queueId, integrationId };
}

const notes = async (admin: Session, ticketId: number) =>
  (
    (await k.call(admin, 'GET', `/ticket-notes/list?ticketId=${ticketId}`).then((r) => r.json())) as {
      note: string;
    }[]
  ).map((n) => n.note);

async function accept(admin: Session, ticket: Ticket) {
  const res = await t.as(admin).put(`/tickets/${ticket.id}`, { status: 'open', userId: admin.user.id });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(await res.json()).toMatchObject({ status: 'open', useIntegration: false, integrationId: null });
}

const typebotBody = (o: Record<string, unknown> = {}) => ({
  type: 'typebot',
  urlN8N: typebot.url,
  typebotSlug: 'loja',
  typebotDelayMessage: 0,
  typebotExpires: 10,
  typebotKeywordFinish: '#sair',
  typebotKeywordRestart: '#reiniciar',
  typebotUnknownMessage: 'Não entendi, responda com o número da opção.',
  typebotRestartMessage: 'Vamos recomeçar.',
  ...o,
});

const MENU = '*1* - Vendas\n*2* - Suporte';

describe('Typebot', () => {
  test('rich text and media bubbles become WhatsApp text', () => {
    expect(
      richTextToWhatsApp([
        {
          type: 'p',
          children: [{ text: 'Olá ' }, { text: 'Ana ', bold: true }, { text: 'tudo', italic: true }],
        },
        { type: 'p', children: [{ type: 'a', url: 'https://x.example', children: [{ text: 'site' }] }] },
      ]),
    ).toBe('Olá *Ana* _tudo_\nsite (https://x.example)');
    expect(bubbleText({ type: 'video', content: { url: 'https://v.example/a.mp4' } })).toBe(
      'https://v.example/a.mp4',
    );
    // Media bubbles are sent as media (fetched by the engine); an embed, or a URL that is not http(s), as text.
    expect(bubbleReply({ type: 'video', content: { url: 'https://v.example/a.mp4' } })).toEqual({
      media: { url: 'https://v.example/a.mp4', kind: 'video' },
    });
    expect(bubbleReply({ type: 'embed', content: { url: 'https://e.example/x' } })).toBe(
      'https://e.example/x',
    );
    expect(bubbleReply({ type: 'image', content: { url: 'data:image/png;base64,AA' } })).toBe(
      'data:image/png;base64,AA',
    );
    expect(pickChoice(['Vendas', 'Suporte'], '2')).toBe('Suporte');
    expect(pickChoice(['Vendas', 'Suporte'], ' vendas ')).toBe('Vendas');
    expect(pickChoice(['Vendas', 'Suporte'], '3')).toBeNull();
  });

  test('a media bubble whose file cannot be fetched is sent as its link', async () => {
    const missing = `${typebot.url}/media/missing.png`;
    typebot.state.next = () => ({
      messages: [{ type: 'image', content: { url: missing } }],
      input: { type: 'text input' },
    });
    const { whatsappId } = await integrationQueue(c.admin, typebotBody());
    const number = newNumber();
    await k.say(c.admin, whatsappId, number, 'oi');
    expect(await k.say(c.admin, whatsappId, number, '1')).toEqual([missing]);
  });

  test('a customer reaching the queue talks to the flow: prefilled variables, choices by number or text, the same session', async () => {
    const { whatsappId, queueId, integrationId } = await integrationQueue(c.admin, typebotBody());
    const number = newNumber();
    const before = typebot.seen.length;
    expect(await k.say(c.admin, whatsappId, number, 'oi')).toEqual([
      `Olá *${number}*, bem-vindo à _loja_`,
      MENU,
    ]);
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({ status: 'pending', queueId, useIntegration: true, integrationId });
    const start = typebot.seen[before]!;
    expect(start).toMatchObject({ call: 'startChat', id: 'loja' });
    expect(start.body.prefilledVariables).toMatchObject({ name: number, number });
    const sessionId = (await t.app.services.automation.state(c.id, ticket.id))!.sessionId!;
    expect(sessionId).toMatch(/^sess-/);

    // An answer the list does not know: the unknown message, Typebot is not called.
    const calls = typebot.seen.length;
    expect(await k.say(c.admin, whatsappId, number, 'talvez')).toEqual([
      'Não entendi, responda com o número da opção.',
    ]);
    expect(typebot.seen.length).toBe(calls);

    const offer = await k.say(c.admin, whatsappId, number, '1');
    expect(offer).toHaveLength(2);
    expect(offer[0]).toBe('Veja nossa _*oferta*_');
    // The image bubble goes out as an image, downloaded from the flow's storage, not as a link.
    const [image] = await t.database.db
      .select()
      .from(messages)
      .where(
        and(eq(messages.ticketId, ticket.id), eq(messages.fromMe, true), eq(messages.mediaType, 'image')),
      );
    expect(image).toMatchObject({ mediaName: 'oferta.png', body: '' });
    expect(image!.data).toMatchObject({ automation: 'typebot' });
    const stored = await t.app.services.media.read(image!.mediaUrl!);
    expect(Buffer.compare(stored, OFFER_PNG)).toBe(0);
    expect(typebot.seen.at(-1)).toMatchObject({
      call: 'continueChat',
      id: sessionId,
      body: { message: { type: 'text', text: 'Vendas' } },
    });
    expect(await k.say(c.admin, whatsappId, number, 'quero o azul')).toEqual(['Bot: quero o azul']);
    expect(typebot.seen.at(-1)).toMatchObject({
      id: sessionId,
      body: { message: { type: 'text', text: 'quero o azul' } },
    });
  });

  test('the finish keyword hands the ticket to people; an accept ends a running flow', async () => {
    const { whatsappId, queueId } = await integrationQueue(c.admin, typebotBody());
    const number = newNumber();
    await k.say(c.admin, whatsappId, number, 'oi');
    const calls = typebot.seen.length;
    expect(await k.say(c.admin, whatsappId, number, '#SAIR')).toEqual([]);
    expect(typebot.seen.length).toBe(calls);
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({ status: 'pending', queueId, useIntegration: false, integrationId: null });
    expect((await t.app.services.automation.state(c.id, ticket.id))?.endReason).toBe('handoff');
    expect(await k.say(c.admin, whatsappId, number, 'alô?')).toEqual([]);
    expect(typebot.seen.length).toBe(calls);

    const n2 = newNumber();
    await k.say(c.admin, whatsappId, n2, 'oi');
    await accept(c.admin, await k.ticketOf(c.id, whatsappId, n2));
    const after = typebot.seen.length;
    expect(await k.say(c.admin, whatsappId, n2, 'ainda aí?')).toEqual([]);
    expect(typebot.seen.length).toBe(after);
  });

  test('a flow that ends (no input) hands over; the restart keyword starts again with its message', async () => {
    const { whatsappId } = await integrationQueue(c.admin, typebotBody());
    const number = newNumber();
    await k.say(c.admin, whatsappId, number, 'oi');
    const first = (await t.app.services.automation.state(
      c.id,
      (await k.ticketOf(c.id, whatsappId, number)).id,
    ))!.sessionId;
    expect(await k.say(c.admin, whatsappId, number, '#reiniciar')).toEqual([
      'Vamos recomeçar.',
      `Olá *${number}*, bem-vindo à _loja_`,
      MENU,
    ]);
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    const second = (await t.app.services.automation.state(c.id, ticket.id))!.sessionId;
    expect(second).not.toBe(first);
    expect(await k.say(c.admin, whatsappId, number, 'suporte')).toEqual(['Um atendente vai falar com você.']);
    expect(await k.ticketOf(c.id, whatsappId, number)).toMatchObject({
      status: 'pending',
      useIntegration: false,
    });
  });

  test('a session idle longer than typebotExpires starts fresh; one Typebot forgot starts fresh too', async () => {
    const { whatsappId } = await integrationQueue(c.admin, typebotBody({ typebotExpires: 1 }));
    const number = newNumber();
    await k.say(c.admin, whatsappId, number, 'oi');
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    // The session was last used more than a minute ago.
    const { ticketAutomations } = await import('../../db/schema/index.js');
    const { eq } = await import('drizzle-orm');
    await t.database.db
      .update(ticketAutomations)
      .set({ sessionAt: new Date(Date.now() - 2 * 60_000) })
      .where(eq(ticketAutomations.ticketId, ticket.id));
    const before = typebot.seen.length;
    expect(await k.say(c.admin, whatsappId, number, '1')).toEqual([
      `Olá *${number}*, bem-vindo à _loja_`,
      MENU,
    ]);
    expect(typebot.seen[before]).toMatchObject({ call: 'startChat' });

    await k.say(c.admin, whatsappId, number, '1');
    typebot.forget();
    const n = typebot.seen.length;
    expect(await k.say(c.admin, whatsappId, number, 'ok')).toEqual([
      `Olá *${number}*, bem-vindo à _loja_`,
      MENU,
    ]);
    expect(typebot.seen.slice(n).map((s) => s.call)).toEqual(['continueChat', 'startChat']);
  });

  test("two customers' sessions never mix", async () => {
    const { whatsappId } = await integrationQueue(c.admin, typebotBody());
    const [a, b] = [newNumber(), newNumber()];
    await Promise.all([k.say(c.admin, whatsappId, a, 'oi'), k.say(c.admin, whatsappId, b, 'oi')]);
    const [ra, rb] = await Promise.all([
      k.say(c.admin, whatsappId, a, '1'),
      k.say(c.admin, whatsappId, b, '2'),
    ]);
    expect(ra).toHaveLength(2);
    expect(ra[0]).toBe('Veja nossa _*oferta*_');
    expect(rb).toEqual(['Um atendente vai falar com você.']);
    const sa = (await t.app.services.automation.state(c.id, (await k.ticketOf(c.id, whatsappId, a)).id))!;
    const sb = (await t.app.services.automation.state(c.id, (await k.ticketOf(c.id, whatsappId, b)).id))!;
    expect(sa.sessionId).not.toBe(sb.sessionId);
    const seenA = typebot.seen
      .filter((s) => s.id === sa.sessionId)
      .map((s) => (s.body.message as { text: string }).text);
    expect(seenA).toEqual(['Vendas']);
  });

  test('a broken Typebot falls back to people with a note for admins', async () => {
    const { whatsappId, queueId } = await integrationQueue(c.admin, typebotBody());
    const number = newNumber();
    typebot.state.broken = true;
    expect(await k.say(c.admin, whatsappId, number, 'oi')).toEqual([]);
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({ status: 'pending', queueId, useIntegration: false });
    expect(await notes(c.admin, ticket.id)).toEqual([
      'Automação (Typebot) falhou: Typebot respondeu 500. O ticket foi passado para atendimento humano.',
    ]);
  });
});

describe('n8n and webhook', () => {
  test.each(['webhook', 'n8n'] as const)(
    '%s: each customer message is POSTed as JSON from a durable job; accept ends it',
    async (type) => {
      const { whatsappId, queueId, integrationId } = await integrationQueue(c.admin, {
        type,
        urlN8N: `${hook.url}/hook/${type}`,
      });
      const number = newNumber();
      const before = hook.seen.length;
      expect(await k.say(c.admin, whatsappId, number, 'quero um orçamento')).toEqual([]);
      await t.app.services.jobs.runDue();
      const ticket = await k.ticketOf(c.id, whatsappId, number);
      expect(ticket).toMatchObject({ status: 'pending', queueId, useIntegration: true, integrationId });
      expect(hook.seen.length).toBe(before + 1);
      const got = hook.seen[before]!;
      expect(got.path).toBe(`/hook/${type}`);
      expect(got.contentType).toContain('application/json');
      expect(got.body).toMatchObject({
        event: 'message',
        integration: { id: integrationId, type },
        company: { id: c.id },
        connection: { id: whatsappId },
        ticket: { id: ticket.id, queueId },
        contact: { number },
        message: { body: 'quero um orçamento', mediaUrl: null },
      });

      // A file's URL is given (downloaded with a token).
      await k.send(c.admin, whatsappId, number, {
        media: { mimetype: 'image/png', filename: 'foto.png', data: Buffer.from('png').toString('base64') },
      });
      await t.app.services.jobs.runDue();
      const media = hook.seen.at(-1)!.body.message as { id: number; mediaUrl: string };
      expect(media.mediaUrl).toBe(`https://recado.example.com/api/messages/${media.id}/media`);

      await accept(c.admin, ticket);
      const n = hook.seen.length;
      await k.say(c.admin, whatsappId, number, 'obrigado');
      await t.app.services.jobs.runDue();
      expect(hook.seen.length).toBe(n);
    },
  );

  test('a failing receiver: people take the ticket at the first failure; the message is retried in the background', async () => {
    const path = `/down-${newNumber()}`;
    const { whatsappId, queueId } = await integrationQueue(c.admin, {
      type: 'webhook',
      urlN8N: `${hook.url}${path}`,
    });
    const number = newNumber();
    hook.state.status = 503;
    await k.say(c.admin, whatsappId, number, 'oi');
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    const { jobs } = await import('../../db/schema/index.js');
    const { and, eq, sql } = await import('drizzle-orm');
    for (let i = 1; i <= HOOK_MAX_ATTEMPTS; i++) {
      // Due now (the back-off is the queue's): every try reaches the receiver.
      await t.database.db
        .update(jobs)
        .set({ runAt: new Date(Date.now() - 1000) })
        .where(
          and(eq(jobs.kind, 'automation.hook'), sql`${jobs.payload}->>'ticketId' = ${String(ticket.id)}`),
        );
      expect(await t.app.services.jobs.runDue()).toBe(1);
      expect(hook.hits.filter((h) => h === path)).toHaveLength(i);
      // The customer is waiting: no ~2.5 minutes of retries before anyone sees the ticket (#29.9).
      const now = await k.ticketOf(c.id, whatsappId, number);
      expect(now.useIntegration).toBe(false);
      expect(now.automation).toMatchObject({ status: 'failed', kind: 'webhook', error: 'HTTP 503' });
    }
    expect(await k.ticketOf(c.id, whatsappId, number)).toMatchObject({
      status: 'pending',
      queueId,
      integrationId: null,
    });
    expect(await notes(c.admin, ticket.id)).toEqual([
      'Automação (webhook) falhou: HTTP 503. O ticket foi passado para atendimento humano.',
    ]);
  });

  test('a webhook URL on a private address is refused when saved (without ALLOW_PRIVATE_URLS)', async () => {
    const strict = await testApp();
    const s = await strict.company('IntegrStrict');
    const res = await strict.as(s.admin).post('/queueIntegration', {
      type: 'webhook',
      name: 'Interno',
      urlN8N: 'http://10.0.0.5/hook',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'ERR_URL_NOT_ALLOWED' });
    // A second app (fresh database and migrations) takes long on a loaded machine.
  }, 180_000);
});

describe('Dialogflow ES', () => {
  const accountA = serviceAccount('bot@proj-a.iam.gserviceaccount.com', 'proj-a');
  const accountB = serviceAccount('bot@proj-b.iam.gserviceaccount.com', 'proj-b');
  df.allow(accountA, 'proj-a');
  df.allow(accountB, 'proj-b');
  const dfBody = (account = accountA, project = 'proj-a') => ({
    type: 'dialogflow',
    projectName: project,
    language: 'pt-BR',
    jsonContent: account.json,
  });

  test('detect intent with a signed JWT token, a session per ticket; the handover intent hands to people', async () => {
    const { whatsappId, queueId, integrationId } = await integrationQueue(c.admin, dfBody());
    const number = newNumber();
    const before = df.detects.length;
    expect(await k.say(c.admin, whatsappId, number, 'qual o preço?')).toEqual(['Df: qual o preço?']);
    const ticket = await k.ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({ useIntegration: true, integrationId, queueId });
    expect(df.detects[before]).toEqual({
      project: 'proj-a',
      session: `recado-${c.id}-${ticket.id}`,
      text: 'qual o preço?',
      languageCode: 'pt-BR',
      clientEmail: accountA.clientEmail,
    });
    const token = df.tokensSeen.find((s) => s.clientEmail === accountA.clientEmail)!;
    expect(token.header).toMatchObject({ alg: 'RS256', kid: 'kid-proj-a' });
    expect(token.claims).toMatchObject({ iss: accountA.clientEmail, aud: df.tokenUrl });

    // The token is cached until it expires: a second message asks no new one.
    const tokens = df.tokensSeen.length;
    expect(await k.say(c.admin, whatsappId, number, 'e a entrega?')).toEqual(['Df: e a entrega?']);
    expect(df.tokensSeen.length).toBe(tokens);
    expect(df.detects.at(-1)!.session).toBe(`recado-${c.id}-${ticket.id}`);

    expect(await k.say(c.admin, whatsappId, number, 'quero um atendente')).toEqual([
      'Vou chamar um atendente.',
    ]);
    expect(await k.ticketOf(c.id, whatsappId, number)).toMatchObject({
      status: 'pending',
      queueId,
      useIntegration: false,
      integrationId: null,
    });
  });

  test('end of conversation hands over; accept ends it; two customers keep their own sessions', async () => {
    const { whatsappId } = await integrationQueue(c.admin, dfBody());
    const [a, b] = [newNumber(), newNumber()];
    await Promise.all([
      k.say(c.admin, whatsappId, a, 'sou a Ana'),
      k.say(c.admin, whatsappId, b, 'sou o Bruno'),
    ]);
    const ta = await k.ticketOf(c.id, whatsappId, a);
    const tb = await k.ticketOf(c.id, whatsappId, b);
    for (const d of df.detects.slice(-2))
      expect(d.session).toBe(d.text === 'sou a Ana' ? `recado-${c.id}-${ta.id}` : `recado-${c.id}-${tb.id}`);
    expect(await k.say(c.admin, whatsappId, a, 'tchau')).toEqual(['Até logo!']);
    expect((await k.ticketOf(c.id, whatsappId, a)).useIntegration).toBe(false);
    await accept(c.admin, tb);
    const n = df.detects.length;
    expect(await k.say(c.admin, whatsappId, b, 'oi?')).toEqual([]);
    expect(df.detects.length).toBe(n);
  });

  test("a provider error falls back to people; a company's account is never used for another's ticket", async () => {
    // Company B's integration names project A with its own account: Google refuses, B's customer goes to people.
    const { whatsappId: wB, queueId } = await integrationQueue(other.admin, dfBody(accountB, 'proj-a'));
    const kb = automationKit(t);
    const { whatsappId: wA } = await integrationQueue(c.admin, dfBody());
    const [na, nb] = [newNumber(), newNumber()];
    const before = df.detects.length;
    const [ra, rb] = await Promise.all([
      k.say(c.admin, wA, na, 'cliente de A'),
      kb.say(other.admin, wB, nb, 'cliente de B'),
    ]);
    expect(ra).toEqual(['Df: cliente de A']);
    expect(rb).toEqual([]);
    expect(df.detects.slice(before)).toEqual([
      expect.objectContaining({ clientEmail: accountA.clientEmail, text: 'cliente de A' }),
    ]);
    const tb = await kb.ticketOf(other.id, wB, nb);
    expect(tb).toMatchObject({ status: 'pending', queueId, useIntegration: false });
    expect(await notes(other.admin, tb.id)).toEqual([
      'Automação (Dialogflow) falhou: Dialogflow respondeu 403 PERMISSION_DENIED. O ticket foi passado para atendimento humano.',
    ]);
    // B cannot read A's integration, nor put it on its queue.
    const list = (await t
      .as(c.admin)
      .get('/queueIntegration/')
      .then((r) => r.json())) as {
      queueIntegrations: { id: number }[];
    };
    const aId = list.queueIntegrations[0]!.id;
    expect((await t.as(other.admin).get(`/queueIntegration/${aId}`)).status).toBe(404);
    expect((await t.as(other.admin).put(`/queue/${queueId}`, { integrationId: aId })).status).toBe(404);
  });

  test('testSession calls detect intent for real: success, or the provider error', async () => {
    const ok = await t.as(c.admin).post('/queueIntegration/testSession', {
      projectName: 'proj-a',
      jsonContent: accountA.json,
      language: 'es',
    });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(await ok.json()).toMatchObject({ message: 'success', reply: 'Df: Olá' });
    expect(df.detects.at(-1)).toMatchObject({ project: 'proj-a', languageCode: 'es', text: 'Olá' });

    const denied = await t.as(c.admin).post('/queueIntegration/testSession', {
      projectName: 'proj-b',
      jsonContent: accountA.json,
      language: 'pt-BR',
    });
    expect(denied.status).toBe(422);
    expect(await denied.json()).toMatchObject({ error: 'ERR_DIALOGFLOW_SESSION' });

    // A key Google does not know: the token endpoint refuses the signature.
    const stranger = serviceAccount('stranger@x.iam.gserviceaccount.com', 'proj-x');
    const refused = await t.as(c.admin).post('/queueIntegration/testSession', {
      projectName: 'proj-a',
      jsonContent: stranger.json,
      language: 'pt-BR',
    });
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as { error: string; message: string };
    expect(body.error).toBe('ERR_DIALOGFLOW_SESSION');
    expect(body.message).toContain('Google OAuth respondeu 400');
    expect(JSON.stringify(body)).not.toContain('PRIVATE KEY');
  });

  test('reading a detect-intent answer', () => {
    expect(
      readDetectIntent({
        queryResult: {
          fulfillmentMessages: [{ text: { text: ['a', 'b'] } }, { payload: { handover: true } }],
        },
      }),
    ).toEqual({ replies: ['a', 'b'], handoff: true });
    expect(readDetectIntent({ queryResult: { fulfillmentText: 'x' } })).toEqual({
      replies: ['x'],
      handoff: false,
    });
  });
});
