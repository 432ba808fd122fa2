import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { WEEKDAYS } from '@recado/contracts';
import { manualClock } from '../../lib/clock.js';
import { messages, queues as queueTable, ticketBotStates, tickets } from '../../db/schema/index.js';
import { testApp, type Session } from '../../../test/helpers.js';
import type { InboundMessage } from '../../messaging/channel.js';
import type { Socket } from 'socket.io-client';
import { botKit, newNumber } from './bot-test-kit.js';
import { INVALID_ANSWER_NOTICE } from './bot-menu.js';

// 2026-11-23 is a Monday. São Paulo (the default company zone) is UTC-3.
const MONDAY_NOON = new Date('2026-11-23T15:00:00Z');
const clock = manualClock(MONDAY_NOON);
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const { bot, idle, db, setup, say, ticketOf } = botKit(t);

const setSetting = async (admin: Session, key: string, value: string) =>
  expect((await t.as(admin).put(`/settings/${key}`, { value })).status).toBe(200);

/** Every payload of `event` from now until `stop()` (no time window: the caller decides when to look). */
function record(socket: Socket, event: string) {
  const seen: unknown[] = [];
  const handler = (p: unknown) => seen.push(p);
  socket.on(event, handler);
  return { seen, stop: () => socket.off(event, handler) };
}

const week = (start: string, end: string) =>
  WEEKDAYS.map((d) => ({ weekday: d, weekdayEn: d, startTime: start, endTime: end }));

const TWO_QUEUES = [
  { name: 'Vendas', greetingMessage: 'Você está em Vendas.', orderQueue: 2 },
  { name: 'Suporte', greetingMessage: 'Você está no Suporte.', orderQueue: 1 },
];

describe('one queue on the connection', () => {
  test('the ticket goes to it at once, with the queue greeting (setting on), history and an event', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotOne');
    const { whatsappId, queues } = await setup(c.admin, [
      { name: 'Único', greetingMessage: 'Bem-vindo ao Único!' },
    ]);
    const socket = await t.socket(c.admin.token);
    expect(await socket.emitWithAck('join', 'notification')).toEqual({ ok: true });
    const number = newNumber();
    const events = record(socket, `company-${c.id}-ticket`);

    expect(await say(c.admin, whatsappId, number, 'Oi')).toEqual(['Bem-vindo ao Único!']);
    const ticket = await ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({
      status: 'pending',
      queueId: queues['Único'],
      userId: null,
      chatbot: false,
    });
    const history = await (await t.as(c.admin).get(`/ticket/${ticket.id}/histories`)).json();
    expect(history.map((h: { action: string }) => h.action)).toEqual(['create', 'transfer']);
    expect(history[1]).toMatchObject({ user: null, queue: { id: queues['Único'], name: 'Único' } });
    // The socket event may still be on its way: wait for it (bounded), then look.
    const moved = (e: unknown) => {
      const v = e as { ticket?: { id: number; queueId: number | null } };
      return v.ticket?.id === ticket.id && v.ticket.queueId === queues['Único'];
    };
    for (let i = 0; i < 200 && !events.seen.some(moved); i++) await new Promise((r) => setTimeout(r, 25));
    events.stop();
    expect(events.seen.some(moved)).toBe(true);

    // The bot has finished: later messages get no answer.
    expect(await say(c.admin, whatsappId, number, 'Alguém aí?')).toEqual([]);
    expect((await bot.state(c.id, ticket.id))?.endReason).toBe('queue');
  });

  test('with sendGreetingMessageOneQueues off the ticket goes to the queue in silence', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotOneQuiet');
    await setSetting(c.admin, 'sendGreetingMessageOneQueues', 'disabled');
    const { whatsappId, queues } = await setup(c.admin, [
      { name: 'Único', greetingMessage: 'Não deve sair' },
    ]);
    const number = newNumber();
    expect(await say(c.admin, whatsappId, number, 'Oi')).toEqual([]);
    expect(await ticketOf(c.id, whatsappId, number)).toMatchObject({
      queueId: queues['Único'],
      status: 'pending',
    });
  });

  test('a connection without queues: no bot at all', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotNone');
    const { whatsappId } = await setup(c.admin, [], { greetingMessage: '' });
    const number = newNumber();
    expect(await say(c.admin, whatsappId, number, 'Oi')).toEqual([]);
    const ticket = await ticketOf(c.id, whatsappId, number);
    expect(ticket.queueId).toBeNull();
    expect(await bot.state(c.id, ticket.id)).toBeNull();
  });

  test('a connection without queues still sends its greeting: once, at the first message of a ticket', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotGreetOnly');
    const { whatsappId } = await setup(c.admin, [], { greetingMessage: 'Olá! Já vamos te atender.' });
    const number = newNumber();
    expect(await say(c.admin, whatsappId, number, 'Oi')).toEqual(['Olá! Já vamos te atender.']);
    expect(await say(c.admin, whatsappId, number, 'Tem alguém?')).toEqual([]);
    const ticket = await ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({ status: 'pending', queueId: null, chatbot: false });
    expect((await bot.state(c.id, ticket.id))?.endReason).toBe('greeting');
    // Another customer gets their own greeting.
    expect(await say(c.admin, whatsappId, newNumber(), 'Bom dia')).toEqual(['Olá! Já vamos te atender.']);
  });
});

describe('several queues', () => {
  test('greeting and numbered list in bot order; the answer picks the queue; the chat shows the bot', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotMany');
    // Buttons and lists are not offered by our channels: the menu is text whatever chatBotType says.
    await setSetting(c.admin, 'chatBotType', 'list');
    const { whatsappId, queues } = await setup(c.admin, [
      ...TWO_QUEUES,
      { name: 'Avulsa', greetingMessage: 'Avulsa aqui.' }, // no order: last
    ]);
    const number = newNumber();
    const menu = 'Olá! Escolha um setor:\n\n*1* - Suporte\n*2* - Vendas\n*3* - Avulsa';
    expect(await say(c.admin, whatsappId, number, 'Boa tarde')).toEqual([menu]);
    let ticket = await ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({ queueId: null, chatbot: true, status: 'pending' });

    expect(await say(c.admin, whatsappId, number, '2 - Enviado do meu iPhone')).toEqual([
      'Você está em Vendas.',
    ]);
    ticket = await ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({ queueId: queues.Vendas, chatbot: false, status: 'pending', userId: null });
    expect(await say(c.admin, whatsappId, number, '1')).toEqual([]);
    expect((await ticketOf(c.id, whatsappId, number)).queueId).toBe(queues.Vendas);

    // The bot's messages are company messages without a user, in the ticket's chat.
    const chat = await (await t.as(c.admin).get(`/messages/${ticket.id}`)).json();
    const bodies = chat.messages.map((m: { body: string; fromMe: boolean }) => [m.fromMe, m.body]);
    expect(bodies).toEqual(
      expect.arrayContaining([
        [true, menu],
        [true, 'Você está em Vendas.'],
      ]),
    );
    const mine = await db
      .select({ userId: messages.userId })
      .from(messages)
      .where(and(eq(messages.ticketId, ticket.id), eq(messages.fromMe, true)));
    expect(mine.length).toBe(2);
    expect(mine.every((m) => m.userId === null)).toBe(true);
  });

  test('keycap emoji, a padded number or the queue name typed out all choose', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotParse');
    const { whatsappId, queues } = await setup(c.admin, TWO_QUEUES);
    for (const [answer, queue] of [
      ['2️⃣', 'Vendas'],
      [' 1. ', 'Suporte'],
      ['suporte', 'Suporte'],
      ['*2*', 'Vendas'],
    ] as const) {
      const number = newNumber();
      await say(c.admin, whatsappId, number, 'oi');
      await say(c.admin, whatsappId, number, answer);
      expect((await ticketOf(c.id, whatsappId, number)).queueId, answer).toBe(queues[queue]);
    }
  });

  test('an invalid answer repeats the menu with a notice; a valid one afterwards still works', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotInvalid');
    const { whatsappId, queues } = await setup(c.admin, TWO_QUEUES);
    const number = newNumber();
    const [menu] = await say(c.admin, whatsappId, number, 'oi');
    expect(await say(c.admin, whatsappId, number, 'quero comprar')).toEqual([
      `${INVALID_ANSWER_NOTICE}\n\n${menu}`,
    ]);
    expect(await say(c.admin, whatsappId, number, '7')).toEqual([`${INVALID_ANSWER_NOTICE}\n\n${menu}`]);
    expect(await say(c.admin, whatsappId, number, '1')).toEqual(['Você está no Suporte.']);
    expect((await ticketOf(c.id, whatsappId, number)).queueId).toBe(queues.Suporte);
  });

  test('after maxUseBotQueues invalid answers the bot stops for good; the ticket waits without queue', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotRounds');
    const { whatsappId } = await setup(c.admin, TWO_QUEUES, { maxUseBotQueues: 2 });
    const number = newNumber();
    await say(c.admin, whatsappId, number, 'oi');
    expect(await say(c.admin, whatsappId, number, 'x')).toHaveLength(1);
    expect(await say(c.admin, whatsappId, number, 'y')).toEqual([]);
    const ticket = await ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({ status: 'pending', queueId: null, chatbot: false });
    expect(await bot.state(c.id, ticket.id)).toMatchObject({ endReason: 'rounds', invalidAnswers: 2 });
    // Even a valid answer is too late now.
    expect(await say(c.admin, whatsappId, number, '1')).toEqual([]);
    expect((await ticketOf(c.id, whatsappId, number)).queueId).toBeNull();
    // Queueless tickets are listed for those who may see them (the admin).
    const pending = await (await t.as(c.admin).get('/tickets?status=pending&showAll=true')).json();
    expect(pending.tickets.map((x: { id: number }) => x.id)).toContain(ticket.id);
  });

  test('after timeUseBotQueues minutes the bot stops (a durable job ends it; an answer then gets nothing)', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotTime');
    const { whatsappId } = await setup(c.admin, TWO_QUEUES, { timeUseBotQueues: 5 });
    const number = newNumber();
    await say(c.admin, whatsappId, number, 'oi');
    const ticket = await ticketOf(c.id, whatsappId, number);
    clock.advance(4 * 60_000);
    await t.app.services.jobs.runDue();
    expect((await bot.state(c.id, ticket.id))?.endedAt).toBeNull();
    clock.advance(60_000);
    await t.app.services.jobs.runDue();
    expect(await bot.state(c.id, ticket.id)).toMatchObject({ endReason: 'time' });
    expect((await ticketOf(c.id, whatsappId, number)).chatbot).toBe(false);
    expect(await say(c.admin, whatsappId, number, '1')).toEqual([]);
    expect((await ticketOf(c.id, whatsappId, number)).queueId).toBeNull();

    // Without the job (say, it has not run yet), the next answer after the limit ends the bot the same way.
    clock.set(MONDAY_NOON);
    const other = newNumber();
    await say(c.admin, whatsappId, other, 'oi');
    clock.advance(6 * 60_000);
    expect(await say(c.admin, whatsappId, other, '1')).toEqual([]);
    const late = await ticketOf(c.id, whatsappId, other);
    expect(late.queueId).toBeNull();
    expect((await bot.state(c.id, late.id))?.endReason).toBe('time');
  });
});

describe('option trees', () => {
  test('each option shows its message and sub-options; 0 and # go back; a leaf ends in the queue', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotTree');
    const { whatsappId, queues, options } = await setup(c.admin, [
      {
        name: 'Financeiro',
        greetingMessage: 'Financeiro: escolha o assunto.',
        orderQueue: 1,
        options: [
          {
            title: 'Boletos',
            message: 'Sobre boletos:',
            children: [
              { title: 'Segunda via', message: 'Enviaremos a segunda via por aqui.' },
              { title: 'Vencimento', message: 'Um atendente vai ajudar com o vencimento.' },
            ],
          },
          { title: 'Pix', message: 'Nossa chave Pix é o CNPJ.' },
        ],
      },
      { name: 'Comercial', greetingMessage: 'Comercial.', orderQueue: 2 },
    ]);
    const number = newNumber();
    const queueMenu = 'Olá! Escolha um setor:\n\n*1* - Financeiro\n*2* - Comercial';
    const rootMenu = 'Financeiro: escolha o assunto.\n\n*1* - Boletos\n*2* - Pix\n*0* - Voltar';
    const boletosMenu = 'Sobre boletos:\n\n*1* - Segunda via\n*2* - Vencimento\n*0* - Voltar';

    expect(await say(c.admin, whatsappId, number, 'oi')).toEqual([queueMenu]);
    expect(await say(c.admin, whatsappId, number, '1')).toEqual([rootMenu]);
    // While the customer walks the tree, the ticket already waits in the chosen queue.
    expect(await ticketOf(c.id, whatsappId, number)).toMatchObject({
      queueId: queues.Financeiro,
      chatbot: true,
    });
    expect(await say(c.admin, whatsappId, number, '1')).toEqual([boletosMenu]);
    expect(await say(c.admin, whatsappId, number, 'abc')).toEqual([
      `${INVALID_ANSWER_NOTICE}\n\n${boletosMenu}`,
    ]);
    expect(await say(c.admin, whatsappId, number, '0')).toEqual([rootMenu]);
    expect(await say(c.admin, whatsappId, number, '#')).toEqual([queueMenu]);
    expect((await ticketOf(c.id, whatsappId, number)).queueId).toBeNull();
    expect(await say(c.admin, whatsappId, number, 'Financeiro')).toEqual([rootMenu]);
    expect(await say(c.admin, whatsappId, number, '1️⃣')).toEqual([boletosMenu]);
    expect(await say(c.admin, whatsappId, number, '1')).toEqual(['Enviaremos a segunda via por aqui.']);
    const ticket = await ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({
      queueId: queues.Financeiro,
      queueOptionId: options['Segunda via'],
      chatbot: false,
      status: 'pending',
      userId: null,
    });
    expect(await bot.state(c.id, ticket.id)).toMatchObject({ endReason: 'option' });
    expect(await say(c.admin, whatsappId, number, '2')).toEqual([]);
  });

  test('a single queue with options: its tree at once, with no way back above the first level', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotSingleTree');
    const { whatsappId, queues } = await setup(c.admin, [
      {
        name: 'Atendimento',
        greetingMessage: 'Como podemos ajudar?',
        options: [
          { title: 'Pedidos', message: 'Um atendente verá seu pedido.' },
          { title: 'Trocas', message: 'Trocas em até 7 dias.' },
        ],
      },
    ]);
    const number = newNumber();
    const root = 'Como podemos ajudar?\n\n*1* - Pedidos\n*2* - Trocas';
    expect(await say(c.admin, whatsappId, number, 'oi')).toEqual([root]);
    expect(await say(c.admin, whatsappId, number, '0')).toEqual([`${INVALID_ANSWER_NOTICE}\n\n${root}`]);
    expect(await say(c.admin, whatsappId, number, '2')).toEqual(['Trocas em até 7 dias.']);
    expect((await ticketOf(c.id, whatsappId, number)).queueId).toBe(queues.Atendimento);
  });
});

describe('business hours', () => {
  test('company hours: out of hours the notice goes once per closed period and no menu; open, the menu', async () => {
    const c = await t.company('BotCompanyHours');
    await setSetting(c.admin, 'scheduleType', 'company');
    expect(
      (await t.as(c.admin).put(`/companies/${c.id}/schedules`, { schedules: week('08:00', '18:00') })).status,
    ).toBe(200);
    const { whatsappId } = await setup(c.admin, TWO_QUEUES, {
      outOfHoursMessage: 'Estamos fechados. Atendemos das 8h às 18h.',
    });
    const number = newNumber();

    clock.set(new Date('2026-11-23T22:00:00Z')); // Monday 19:00
    expect(await say(c.admin, whatsappId, number, 'oi')).toEqual([
      'Estamos fechados. Atendemos das 8h às 18h.',
    ]);
    expect(await say(c.admin, whatsappId, number, 'tem alguém?')).toEqual([]);
    clock.set(new Date('2026-11-24T09:30:00Z')); // Tuesday 06:30, the same night
    expect(await say(c.admin, whatsappId, number, '1')).toEqual([]);
    let ticket = await ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({ status: 'pending', queueId: null });

    clock.set(new Date('2026-11-24T22:00:00Z')); // Tuesday 19:00: another closed period
    expect(await say(c.admin, whatsappId, number, 'oi de novo')).toEqual([
      'Estamos fechados. Atendemos das 8h às 18h.',
    ]);

    clock.set(new Date('2026-11-25T13:00:00Z')); // Wednesday 10:00: open
    const [menu] = await say(c.admin, whatsappId, number, 'bom dia');
    expect(menu).toContain('*1* - Suporte');
    ticket = await ticketOf(c.id, whatsappId, number);
    expect(ticket.chatbot).toBe(true);
  });

  test('queue hours: the menu is offered; a closed queue takes the ticket and sends its notice once per period', async () => {
    const c = await t.company('BotQueueHours');
    await setSetting(c.admin, 'scheduleType', 'queue');
    const { whatsappId, queues } = await setup(c.admin, [
      {
        name: 'Plantão',
        greetingMessage: 'Plantão aberto.',
        orderQueue: 1,
        // Open all day, every day.
        schedules: week('00:00', '23:59'),
      },
      {
        name: 'Cobrança',
        greetingMessage: 'Cobrança.',
        outOfHoursMessage: 'A Cobrança atende das 8h às 9h.',
        orderQueue: 2,
        schedules: week('08:00', '09:00'),
      },
    ]);

    clock.set(MONDAY_NOON);
    const number = newNumber();
    const [menu] = await say(c.admin, whatsappId, number, 'oi');
    expect(menu).toContain('*2* - Cobrança');
    expect(await say(c.admin, whatsappId, number, '2')).toEqual(['A Cobrança atende das 8h às 9h.']);
    let ticket = await ticketOf(c.id, whatsappId, number);
    expect(ticket).toMatchObject({ queueId: queues['Cobrança'], status: 'pending', chatbot: false });
    expect(await bot.state(c.id, ticket.id)).toMatchObject({ endReason: 'closed' });
    expect(await say(c.admin, whatsappId, number, 'ok, aguardo')).toEqual([]);
    clock.set(new Date('2026-11-24T10:00:00Z')); // Tuesday 07:00: still the same closed period
    expect(await say(c.admin, whatsappId, number, 'bom dia')).toEqual([]);
    clock.set(new Date('2026-11-24T15:00:00Z')); // Tuesday 12:00: the next closed period
    expect(await say(c.admin, whatsappId, number, 'ninguém?')).toEqual(['A Cobrança atende das 8h às 9h.']);
    clock.set(new Date('2026-11-25T11:30:00Z')); // Wednesday 08:30: open; the ticket waits, no bot
    expect(await say(c.admin, whatsappId, number, 'oi')).toEqual([]);
    ticket = await ticketOf(c.id, whatsappId, number);
    expect(ticket.queueId).toBe(queues['Cobrança']);

    // The open queue works as usual.
    clock.set(MONDAY_NOON);
    const other = newNumber();
    await say(c.admin, whatsappId, other, 'oi');
    expect(await say(c.admin, whatsappId, other, '1')).toEqual(['Plantão aberto.']);
  });
});

describe('tickets the bot leaves alone', () => {
  test('an open ticket, a ticket accepted in the middle of the menu, and one returned afterwards', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotOpen');
    const { whatsappId } = await setup(c.admin, TWO_QUEUES);

    // A ticket an attendant opened: the customer's messages reach the attendant only.
    const number = newNumber();
    const contact = await (await t.as(c.admin).post('/contacts', { name: 'Cliente Aberto', number })).json();
    const opened = await t
      .as(c.admin)
      .post('/tickets', { contactId: contact.id, whatsappId, status: 'open' });
    expect(opened.status).toBe(201);
    expect(await say(c.admin, whatsappId, contact.number, 'oi')).toEqual([]);

    // Accepted while the menu waits for an answer: the bot is over for that ticket.
    const other = newNumber();
    await say(c.admin, whatsappId, other, 'oi');
    const ticket = await ticketOf(c.id, whatsappId, other);
    expect((await t.as(c.admin).put(`/tickets/${ticket.id}`, { status: 'open' })).status).toBe(200);
    expect(await say(c.admin, whatsappId, other, '1')).toEqual([]);
    expect((await ticketOf(c.id, whatsappId, other)).queueId).toBeNull();
    expect(await bot.state(c.id, ticket.id)).toMatchObject({ endReason: 'handled' });
    // Returned to the waiting list: still no bot (its session ended).
    expect((await t.as(c.admin).put(`/tickets/${ticket.id}`, { status: 'pending' })).status).toBe(200);
    expect(await say(c.admin, whatsappId, other, '1')).toEqual([]);
    expect((await ticketOf(c.id, whatsappId, other)).queueId).toBeNull();
  });

  test('a group gets no bot', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotGroup');
    const { whatsappId } = await setup(c.admin, TWO_QUEUES);
    // #33.5 Groups are each connection's choice.
    expect((await t.as(c.admin).put(`/whatsapp/${whatsappId}`, { groupMode: 'tickets' })).status).toBe(200);
    // The simulator has no groups: the message enters the same pipeline every channel uses.
    const group: InboundMessage = {
      kind: 'message',
      providerId: `group-${Date.now()}`,
      from: '120363000000000001',
      replyTo: '120363000000000001',
      name: 'Grupo da família',
      isGroup: true,
      fromMe: false,
      body: 'oi',
      timestamp: new Date(),
      participant: { number: '5511999990000' },
    };
    const ref = { id: whatsappId, companyId: c.id, channel: 'simulator', channelConfig: {} };
    const result = await t.app.services.pipeline.message(ref, group);
    expect(result.status).toBe('stored');
    await idle();
    const sent = await db
      .select()
      .from(messages)
      .where(and(eq(messages.ticketId, result.ticketId!), eq(messages.fromMe, true)));
    expect(sent).toEqual([]);
    expect(await bot.state(c.id, result.ticketId!)).toBeNull();
  });
});

describe('another company', () => {
  test("cannot read, change, feed or watch the first company's bot conversations; its own bot uses its own queues", async () => {
    clock.set(MONDAY_NOON);
    const a = await t.company('BotTenantA');
    const b = await t.company('BotTenantB');
    const A = await setup(a.admin, TWO_QUEUES);
    const B = await setup(b.admin, [
      { name: 'B um', greetingMessage: 'B1', orderQueue: 1 },
      { name: 'B dois', greetingMessage: 'B2', orderQueue: 2 },
    ]);
    const spy = await t.socket(b.admin.token);
    expect(await spy.emitWithAck('join', 'notification')).toEqual({ ok: true });
    const watched = record(spy, `company-${a.id}-appMessage`);
    const watchedTickets = record(spy, `company-${a.id}-ticket`);

    const number = newNumber();
    const [menu] = await say(a.admin, A.whatsappId, number, 'oi');
    expect(menu).toContain('Suporte');
    const ticket = await ticketOf(a.id, A.whatsappId, number);
    expect(await spy.emitWithAck('join', `ticket-${ticket.id}`)).toEqual({ ok: false });

    // B answers A's menu through A's connection: refused, and A's bot does not move.
    const feed = await t.as(b.admin).post(`/simulator/${A.whatsappId}/inbound`, { from: number, body: '1' });
    expect([403, 404]).toContain(feed.status);
    expect((await t.as(b.admin).get(`/simulator/${A.whatsappId}/conversations/${number}`)).status).toBe(404);
    expect((await t.as(b.admin).get(`/tickets/${ticket.id}`)).status).toBe(404);
    expect((await t.as(b.admin).put(`/tickets/${ticket.id}`, { queueId: B.queues['B um'] })).status).toBe(
      404,
    );
    await idle();
    expect(await ticketOf(a.id, A.whatsappId, number)).toMatchObject({ queueId: null, chatbot: true });

    // The same customer writing to B's connection gets B's menu and lands in B's queue; A is untouched.
    expect(await say(b.admin, B.whatsappId, number, 'oi')).toEqual([
      'Olá! Escolha um setor:\n\n*1* - B um\n*2* - B dois',
    ]);
    expect(await say(b.admin, B.whatsappId, number, '2')).toEqual(['B2']);
    expect((await ticketOf(b.id, B.whatsappId, number)).queueId).toBe(B.queues['B dois']);
    expect(await ticketOf(a.id, A.whatsappId, number)).toMatchObject({ queueId: null, chatbot: true });
    expect(await say(a.admin, A.whatsappId, number, '1')).toEqual(['Você está no Suporte.']);
    expect((await ticketOf(a.id, A.whatsappId, number)).queueId).toBe(A.queues.Suporte);
    const aQueues = await db.select().from(queueTable).where(eq(queueTable.companyId, a.id));
    expect(aQueues).toHaveLength(2);
    const bStates = await db.select().from(ticketBotStates).where(eq(ticketBotStates.companyId, b.id));
    expect(bStates.every((s) => s.whatsappId === B.whatsappId)).toBe(true);
    const aTickets = await db.select().from(tickets).where(eq(tickets.companyId, a.id));
    expect(aTickets.every((x) => x.queueId === null || Object.values(A.queues).includes(x.queueId))).toBe(
      true,
    );

    watched.stop();
    watchedTickets.stop();
    expect(watched.seen).toEqual([]);
    expect(watchedTickets.seen).toEqual([]);
  });
});
