import { expect, test } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { contactCustomFields, contacts } from '../../db/schema/index.js';
import { executeRows } from '../../db/rows.js';
import { simulatorConversation, testApp } from '../../../test/helpers.js';
import { loadedFromJson, loadedJson, loadTicketQuery } from './flow-runtime.js';
import { chain, flowApi } from './flow-test-kit.js';

/**
 * A flow's step reads its ticket inside the pre-check (loadedJson, one statement fewer a step): it must be what
 * the step's own read (loadTicketQuery) answers, field for field - and nothing for a message no flow concerns.
 */
const t = await testApp();
const db = t.database.db;

const conversation = (name: string) => simulatorConversation(t, name, '5511944440002', 'Bia');

const readInPrecheck = async (companyId: number, ticketId: number, whatsappId: number) => {
  const [row] = await executeRows<{ loaded: unknown }>(
    db,
    sql`select ${loadedJson(companyId, ticketId, whatsappId)} as loaded`,
  );
  return loadedFromJson(row!.loaded);
};

test("the pre-check's read of the ticket equals the step's own read; none without a run or a flow", async () => {
  const { c, w, ticket } = await conversation('FlowRead');
  // No run and no flow on the connection: the pre-check reads nothing more.
  expect(await readInPrecheck(c.id, ticket.id, w.id)).toBeNull();

  await db
    .update(contacts)
    .set({ email: 'bia@example.test', customFields: { plano: 'ouro', n: 7 } })
    .where(eq(contacts.id, ticket.contactId));
  await db.insert(contactCustomFields).values([
    { contactId: ticket.contactId, name: 'cpf', value: '123' },
    { contactId: ticket.contactId, name: 'cidade', value: 'São Paulo "centro"' },
  ]);
  await flowApi(t, c.admin).onConnection(w.id, chain([{ id: 'm', type: 'message', data: { text: 'oi' } }]));

  const inPrecheck = await readInPrecheck(c.id, ticket.id, w.id);
  const [own] = await loadTicketQuery(db).execute({ companyId: c.id, ticketId: ticket.id });
  expect(inPrecheck).not.toBeNull();
  expect(inPrecheck!.ticket).toEqual(own!.ticket);
  expect(inPrecheck!.contact).toEqual(own!.contact);
  expect(inPrecheck!.connection).toEqual(own!.connection);
  expect(inPrecheck!.extra).toEqual(own!.extra);
  expect(inPrecheck!.extra.map((x) => x.name)).toEqual(['cpf', 'cidade']);
  expect(inPrecheck!.ticket.updatedAt).toBeInstanceOf(Date);

  // Another company's ids read nothing.
  const other = await t.company('FlowReadOther');
  expect(await readInPrecheck(other.id, ticket.id, w.id)).toBeNull();
});
