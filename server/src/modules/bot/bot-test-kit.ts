import { and, desc, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { contacts, tickets } from '../../db/schema/index.js';
import type { App } from '../../app.js';
import type { TestApp, Session } from '../../../test/helpers.js';

/** What the bot tests build through the API: queues with option trees on a simulator connection. */
export interface OptionSpec {
  title: string;
  message?: string;
  option?: string;
  children?: OptionSpec[];
}
export interface QueueSpec {
  name: string;
  greetingMessage?: string;
  outOfHoursMessage?: string;
  orderQueue?: number | null;
  schedules?: unknown;
  options?: OptionSpec[];
}
export interface PhoneMessage {
  id: string;
  fromMe: boolean;
  body: string;
  ack: number;
}

let colorSeq = 0x123400;
let idSeq = 0;
let numberSeq = 0;

/** A fresh Brazilian mobile number (canonical: 55, area code, 9 and eight digits). */
export const newNumber = () => `55119${String(70000000 + ++numberSeq + Math.floor(Math.random() * 1e6))}`;

/** Drives the app of `t`, or another app on the same database (`target`: a restarted process). */
export function botKit(t: TestApp, target?: { app: App; url: string }) {
  const bot = (target?.app ?? t.app).services.bot;
  /** Resolves once every event so far was handled (the bot answers through the event bus). */
  const idle = () => (target?.app ?? t.app).services.bus.idle();
  const db = t.database.db;
  const base = target?.url ?? t.url;
  const call = (s: Session, method: string, path: string, body?: unknown) =>
    fetch(`${base}/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${s.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const as = (s: Session) => ({
    get: (path: string) => call(s, 'GET', path),
    post: (path: string, body?: unknown) => call(s, 'POST', path, body ?? {}),
  });

  async function createOptions(admin: Session, queueId: number, parentId: number, specs: OptionSpec[]) {
    const ids: Record<string, number> = {};
    for (const o of specs) {
      const res = await as(admin).post('/queue-options', {
        queueId,
        parentId,
        title: o.title,
        message: o.message ?? '',
        ...(o.option ? { option: o.option } : {}),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      const created = (await res.json()) as { id: number };
      ids[o.title] = created.id;
      if (o.children) Object.assign(ids, await createOptions(admin, queueId, created.id, o.children));
    }
    return ids;
  }

  /** Queues (with their option trees) and a simulator connection offering them. */
  async function setup(
    admin: Session,
    queueSpecs: QueueSpec[],
    connection: Record<string, unknown> = {},
  ): Promise<{ whatsappId: number; queues: Record<string, number>; options: Record<string, number> }> {
    const queues: Record<string, number> = {};
    const options: Record<string, number> = {};
    for (const q of queueSpecs) {
      const res = await as(admin).post('/queue', {
        name: q.name,
        color: `#${(++colorSeq).toString(16).toUpperCase()}`,
        greetingMessage: q.greetingMessage ?? '',
        outOfHoursMessage: q.outOfHoursMessage ?? '',
        orderQueue: q.orderQueue ?? null,
        ...(q.schedules ? { schedules: q.schedules } : {}),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      const created = (await res.json()) as { id: number };
      queues[q.name] = created.id;
      if (q.options) Object.assign(options, await createOptions(admin, created.id, -1, q.options));
    }
    const res = await as(admin).post('/whatsapp', {
      name: `Bot ${++idSeq}`,
      channel: 'simulator',
      greetingMessage: 'Olá! Escolha um setor:',
      queueIds: Object.values(queues),
      ...connection,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const w = (await res.json()) as { id: number };
    return { whatsappId: w.id, queues, options };
  }

  async function phone(admin: Session, whatsappId: number, number: string): Promise<PhoneMessage[]> {
    const res = await as(admin).get(`/simulator/${whatsappId}/conversations/${number}`);
    expect(res.status).toBe(200);
    return (await res.json()) as PhoneMessage[];
  }

  /**
   * The customer sends a message through the simulator's HTTP entry; resolves once the company has it
   * (the phone shows ✓✓, after the pipeline stored it) and the bot has finished with it. Returns what the
   * bot answered to it, as the customer's phone shows it.
   */
  async function say(admin: Session, whatsappId: number, number: string, body: string): Promise<string[]> {
    const id = `bot-test-${++idSeq}-${Date.now()}`;
    const before = (await phone(admin, whatsappId, number)).length;
    const res = await as(admin).post(`/simulator/${whatsappId}/inbound`, { id, from: number, body });
    expect(res.status).toBe(202);
    const end = Date.now() + 15_000;
    for (;;) {
      const conv = await phone(admin, whatsappId, number);
      if (conv.find((m) => m.id === id && m.ack >= 2)) break;
      if (Date.now() > end) throw new Error(`message ${id} never reached the company`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await idle();
    const conv = await phone(admin, whatsappId, number);
    return conv
      .slice(before)
      .filter((m) => m.fromMe)
      .map((m) => m.body);
  }

  /** The customer's newest ticket on the connection, read from the database. */
  async function ticketOf(companyId: number, whatsappId: number, number: string) {
    const [row] = await db
      .select({ ticket: tickets })
      .from(tickets)
      .innerJoin(contacts, eq(contacts.id, tickets.contactId))
      .where(
        and(
          eq(tickets.companyId, companyId),
          eq(tickets.whatsappId, whatsappId),
          eq(contacts.number, number),
        ),
      )
      .orderBy(desc(tickets.id))
      .limit(1);
    if (!row) throw new Error(`no ticket for ${number}`);
    return row.ticket;
  }

  return { bot, idle, db, setup, phone, say, ticketOf };
}
