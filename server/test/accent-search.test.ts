import { describe, expect, test } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { tickets } from '../src/db/schema/index.js';
import { containsNormalised, containsText } from '../src/lib/sql.js';
import { testApp, unique, waitFor, type Session } from './helpers.js';

/**
 * Every search of the product is blind to accents and case (docs/search.md): attendants type "joao",
 * "lucia", "duvida" or "JOAO" and find "João", "Lúcia", "dúvida" — on PGlite and on PostgreSQL alike.
 */
const t = await testApp({ deps: { jobs: { autoStart: false } } });
const db = t.database.db;

const A = await t.company('Acentos');
const B = await t.company('Outra');
const admin = t.as(A.admin);

/** Each domain holds three accented entries and one that no query below matches. */
const JOAO = 'João';
const LUCIA = 'Lúcia';
const DUVIDA = 'dúvida';
const QUERIES: [query: string, word: string][] = [
  ['joao', JOAO],
  ['JOAO', JOAO],
  ['Joao', JOAO],
  ['lucia', LUCIA],
  ['LÚCIA', LUCIA],
  ['duvida', DUVIDA],
  ['DUVIDA', DUVIDA],
  ['dúvida', DUVIDA],
];

const created = async (res: Response) => {
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
};

async function simulator(s: Session) {
  const w = await (await t.as(s).post('/whatsapp', { name: unique('Sim'), channel: 'simulator' })).json();
  await waitFor(async () => t.app.sessions.get(w.id));
  return w.id as number;
}

const whatsappId = await simulator(A.admin);
let numberSeq = 0;
const nextNumber = () =>
  `55119${String(Date.now() % 1e5).padStart(5, '0')}${String(numberSeq++).padStart(3, '0')}`;

/** A customer writes in on company `s`'s simulator: a contact and a pending ticket. */
async function inbound(s: { id: number; admin: Session }, wid: number, name: string, body: string) {
  const from = nextNumber();
  const res = await t.as(s.admin).post(`/simulator/${wid}/inbound`, { from, name, body });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return from;
}

// Tickets and contacts: the contact's name carries two of the words, a message's text the third.
await inbound(A, whatsappId, 'João Silva', 'Olá, bom dia');
await inbound(A, whatsappId, 'Lúcia Souza', 'Boa tarde');
await inbound(A, whatsappId, 'Pedro Dias', 'Tenho uma dúvida sobre o pedido');
await inbound(A, whatsappId, 'Marcos Lima', 'Oi');
// The other company has a João too: never found from company A.
await inbound(B, await simulator(B.admin), 'João Outro', 'Uma dúvida de outra empresa');
await waitFor(async () => (await db.select().from(tickets).where(eq(tickets.companyId, A.id))).length === 4);
await waitFor(async () => (await db.select().from(tickets).where(eq(tickets.companyId, B.id))).length === 1);

const contactIds = Object.fromEntries(
  ((await (await admin.get('/contacts')).json()).contacts as { id: number; name: string }[]).map((c) => [
    c.name,
    c.id,
  ]),
);

// One entry per word in each other domain, and one that matches nothing.
const names = ['Atendente João', 'Supervisora Lúcia', 'Tira dúvida', 'Marcos Neutro'];
for (const [i, name] of names.entries())
  await created(
    await admin.post('/users', { name, email: `${unique(`u${i}`)}@search.test`, password: 'User@123' }),
  );
for (const name of names) await created(await admin.post('/tags', { name }));
for (const [i, name] of names.entries())
  await created(await admin.post('/quick-messages', { shortcode: `atalho${i}`, message: `Texto: ${name}` }));
let listId = 0;
for (const name of names) listId = (await created(await admin.post('/contact-lists', { name }))).id;
for (const name of names)
  await created(
    await admin.post('/contact-list-items', { name, number: nextNumber(), contactListId: listId }),
  );
for (const name of names) await created(await admin.post('/files', { name, message: 'Anexos' }));
const sendAt = new Date(Date.now() + 24 * 3600_000).toISOString();
for (const name of names)
  await created(
    await admin.post('/schedules', {
      body: `Lembrete: ${name}`,
      contactId: contactIds['Marcos Lima'],
      sendAt,
    }),
  );
for (const name of names)
  await created(
    await admin.post('/queueIntegration', {
      type: 'typebot',
      name,
      urlN8N: 'https://typebot.example.com',
      typebotSlug: 'fluxo',
    }),
  );
for (const name of names)
  await created(
    await admin.post('/campaigns', { name, message1: 'Olá {nome}!', whatsappId, contactListId: listId }),
  );

type Search = (q: string) => Promise<string[]>;
const get = async (s: Session, path: string) => {
  const res = await t.as(s).get(path);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
};
const q = encodeURIComponent;

/** Each search, as the screens call it, answering the names (or texts) it finds. */
const searches: Record<string, Search> = {
  'tickets (contact name and message text)': async (s) =>
    (await get(A.admin, `/tickets?showAll=true&searchParam=${q(s)}`)).tickets.map(
      (x: { contact: { name: string } }) => x.contact.name,
    ),
  contacts: async (s) =>
    (await get(A.admin, `/contacts?searchParam=${q(s)}`)).contacts.map((x: { name: string }) => x.name),
  users: async (s) =>
    (await get(A.admin, `/users?searchParam=${q(s)}`)).users.map((x: { name: string }) => x.name),
  tags: async (s) =>
    (await get(A.admin, `/tags?searchParam=${q(s)}`)).tags.map((x: { name: string }) => x.name),
  'quick messages': async (s) =>
    (await get(A.admin, `/quick-messages?searchParam=${q(s)}`)).records.map(
      (x: { message: string }) => x.message,
    ),
  'contact lists': async (s) =>
    (await get(A.admin, `/contact-lists?searchParam=${q(s)}`)).records.map((x: { name: string }) => x.name),
  'contact list items': async (s) =>
    (await get(A.admin, `/contact-list-items?contactListId=${listId}&searchParam=${q(s)}`)).contacts.map(
      (x: { name: string }) => x.name,
    ),
  files: async (s) =>
    (await get(A.admin, `/files?searchParam=${q(s)}`)).files.map((x: { name: string }) => x.name),
  schedules: async (s) =>
    (await get(A.admin, `/schedules?searchParam=${q(s)}`)).schedules.map((x: { body: string }) => x.body),
  'queue integrations': async (s) =>
    (await get(A.admin, `/queueIntegration?searchParam=${q(s)}`)).queueIntegrations.map(
      (x: { name: string }) => x.name,
    ),
  campaigns: async (s) =>
    (await get(A.admin, `/campaigns?searchParam=${q(s)}`)).records.map((x: { name: string }) => x.name),
};

/** What each search must find for a word: the entries that contain it, exactly as stored. */
const expected = (domain: string, word: string): string[] => {
  if (domain.startsWith('tickets'))
    return { [JOAO]: ['João Silva'], [LUCIA]: ['Lúcia Souza'], [DUVIDA]: ['Pedro Dias'] }[word]!;
  if (domain === 'contacts') return { [JOAO]: ['João Silva'], [LUCIA]: ['Lúcia Souza'], [DUVIDA]: [] }[word]!;
  const name = names.find((n) => n.includes(word))!;
  if (domain === 'quick messages') return [`Texto: ${name}`];
  if (domain === 'schedules') return [`Lembrete: ${name}`];
  return [name];
};

describe('accent- and case-blind search', () => {
  for (const [domain, search] of Object.entries(searches))
    test(domain, async () => {
      for (const [query, word] of QUERIES)
        expect({ query, found: (await search(query)).sort() }).toEqual({
          query,
          found: expected(domain, word),
        });
      // Unrelated text still finds nothing, and LIKE's wildcards stay literal.
      expect(await search('zzz')).toEqual([]);
      expect(await search('%%%')).toEqual([]);
    });

  test('the platform owner finds companies the same way', async () => {
    const su = await t.superuser();
    await created(
      await t.as(su).post('/companies', {
        name: 'Padaria São João',
        email: `${unique('padaria')}@search.test`,
        planId: 5,
        dueDate: '2099-01-01',
        adminName: 'Padeiro',
        adminPassword: 'Admin@123',
      }),
    );
    for (const query of ['sao joao', 'SAO JOÃO', 'São João'])
      expect(
        (await get(su, `/companies?searchParam=${q(query)}`)).companies.map((c: { name: string }) => c.name),
      ).toEqual(['Padaria São João']);
  });

  test('another company never finds company A`s entries', async () => {
    const found = await get(B.admin, `/tickets?showAll=true&searchParam=joao`);
    expect(found.tickets.map((x: { contact: { name: string } }) => x.contact.name)).toEqual(['João Outro']);
    expect((await get(B.admin, '/contacts?searchParam=lucia')).contacts).toEqual([]);
    expect((await get(B.admin, '/tags?searchParam=joao')).tags).toEqual([]);
  });

  test('the contact-name and message-text searches read the trigram indexes built on search_norm() (messages: its stored column)', async () => {
    // With sequential scans priced out, a plan that cannot use the index on the same expression would
    // still scan the table: the plan naming the index proves the query and the index agree.
    const plan = async (query: ReturnType<typeof sql>) =>
      db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        const res = (await tx.execute(sql`explain ${query}`)) as unknown as
          { rows: Record<string, string>[] } | Record<string, string>[];
        const rows = Array.isArray(res) ? res : res.rows;
        return rows.map((r) => Object.values(r)[0]).join('\n');
      });
    expect(await plan(sql`select id from contacts where ${containsText(sql`name`, 'joao')}`)).toContain(
      'contacts_name_search_idx',
    );
    expect(
      await plan(sql`select id from messages where ${containsNormalised(sql`body_search`, 'duvida')}`),
    ).toContain('messages_body_search_idx');
  });
});
