import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { testApp } from '../../test/helpers.js';
import { botKit, newNumber } from '../modules/bot/bot-test-kit.js';
import { companies, whatsappQueues, whatsapps } from './schema/index.js';
import { DEMO, seed } from './seed.js';

/** #29.10: the README's first step (the demo's simulator) must answer the customer. */
const t = await testApp();
const kit = botKit(t);
await seed(t.database.db, { demo: true, print: () => undefined });
const admin = await t.login(DEMO.admin.email, DEMO.admin.password);
const [demo] = await t.database.db.select().from(companies).where(eq(companies.name, DEMO.company));
const [simulator] = await t.database.db
  .select()
  .from(whatsapps)
  .where(and(eq(whatsapps.companyId, demo!.id), eq(whatsapps.channel, 'simulator')));

describe('the demo company at first start', () => {
  test("the simulator's first conversation gets the greeting and the menu; a choice is answered", async () => {
    const number = newNumber();
    const [menu] = await kit.say(admin, simulator!.id, number, 'Oi');
    expect(menu).toBe(`${DEMO.greeting}\n\n*1* - Suporte\n*2* - Vendas\n*3* - Financeiro`);
    const finance = await kit.say(admin, simulator!.id, number, '3');
    expect(finance).toHaveLength(1);
    expect(finance[0]).toMatch(
      /^Você está no Financeiro\. Escolha o assunto:\n\n\*1\* - Segunda via de boleto/,
    );
    expect(await kit.say(admin, simulator!.id, number, '1')).toEqual([
      'Certo! Um atendente já envia a sua segunda via.',
    ]);
    const ticket = await kit.ticketOf(demo!.id, simulator!.id, number);
    expect(ticket).toMatchObject({ status: 'pending', chatbot: false });
    expect(ticket.queueOptionId).not.toBeNull();
  });

  test('the demo attendant works in a queue the menu offers, and sees the chosen ticket', async () => {
    const attendant = await t.login(DEMO.attendant.email, DEMO.attendant.password);
    const number = newNumber();
    await kit.say(admin, simulator!.id, number, 'Olá');
    expect(await kit.say(admin, simulator!.id, number, 'suporte')).toEqual([
      'Você está no Suporte. Conte o que houve.',
    ]);
    const ticket = await kit.ticketOf(demo!.id, simulator!.id, number);
    const list = await (await t.as(attendant).get('/tickets?status=pending')).json();
    expect(list.tickets.map((x: { id: number }) => x.id)).toContain(ticket.id);
  });

  test('a data dir seeded before (simulator without queues) gets the menu from migration 0035', async () => {
    await t.database.db.delete(whatsappQueues).where(eq(whatsappQueues.whatsappId, simulator!.id));
    const number = newNumber();
    // Before: only the greeting (a connection without queues still greets).
    expect(await kit.say(admin, simulator!.id, number, 'Oi')).toEqual([DEMO.greeting]);
    const migration = readFileSync(new URL('../../drizzle/0035_first_use.sql', import.meta.url), 'utf8');
    for (const statement of migration.split('--> statement-breakpoint'))
      await t.database.db.execute(sql.raw(statement));
    const linked = await t.database.db
      .select()
      .from(whatsappQueues)
      .where(eq(whatsappQueues.whatsappId, simulator!.id));
    expect(linked).toHaveLength(3);
    // Another company's simulator without queues is left alone.
    const other = await t.company('NotDemo');
    const res = await t.as(other.admin).post('/whatsapp', {
      name: 'Simulador',
      channel: 'simulator',
      greetingMessage: 'Oi!',
    });
    const created = (await res.json()) as { id: number };
    await t.as(other.admin).post('/queue', { name: 'Fila', color: '#ABCDEF', greetingMessage: '' });
    for (const statement of migration.split('--> statement-breakpoint'))
      await t.database.db.execute(sql.raw(statement));
    expect(
      await t.database.db.select().from(whatsappQueues).where(eq(whatsappQueues.whatsappId, created.id)),
    ).toHaveLength(0);
    const [menu] = await kit.say(admin, simulator!.id, newNumber(), 'Oi');
    expect(menu).toContain('*3* - Financeiro');
  });
});
