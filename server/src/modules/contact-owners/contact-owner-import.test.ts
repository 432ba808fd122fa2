import { describe, expect, test } from 'vitest';
import { testApp } from '../../../test/helpers.js';

// #30.4 The contacts import's owner column: a user of the company by e-mail (any case), the column named in
// pt/en/es; an unknown e-mail, another company's user or a non-text cell is a bad row with the reason.
const t = await testApp();

type Report = {
  newContacts: { contactId: number; contactName: string }[];
  errorBag: { row: number; contactName: string; error: { code: string; field?: string; message: string } }[];
};

describe('contacts import owner column', () => {
  test('sets the owner by e-mail; unknown or foreign owners are bad rows, nothing guessed', async () => {
    const c = await t.company('OwnImport');
    const agent = await t.user(c.admin);
    const other = await t.company('OwnImportOther');
    const rows = [
      { nome: 'Ana', numero: '11 98666-0001', responsavel: agent.user.email.toUpperCase() },
      { name: 'Bia', number: '11 98666-0002', Owner: ` ${agent.user.email} ` },
      { nome: 'Caio', numero: '11 98666-0003', Responsável: 'nobody@nowhere.test' },
      { nome: 'Duda', numero: '11 98666-0004', dono: other.admin.user.email },
      { nome: 'Enzo', numero: '11 98666-0005' },
      { nome: 'Fabi', numero: '11 98666-0006', propietario: 42 },
      { nome: 'Gabi', numero: '11 98666-0007', carteira: '' },
    ];
    const res = await t.as(c.admin).post('/contacts/upload', rows);
    expect(res.status).toBe(200);
    const report = (await res.json()) as Report;
    expect(report.newContacts.map((n) => n.contactName)).toEqual(['Ana', 'Bia', 'Enzo', 'Gabi']);
    expect(report.errorBag.map((e) => [e.row, e.contactName, e.error.code, e.error.field])).toEqual([
      [3, 'Caio', 'ERR_VALIDATION', 'ownerId'],
      [4, 'Duda', 'ERR_VALIDATION', 'ownerId'],
      [6, 'Fabi', 'ERR_VALIDATION', 'ownerId'],
    ]);
    expect(report.errorBag[0]!.error.message).toContain('nobody@nowhere.test');
    expect(report.errorBag[1]!.error.message).toContain(other.admin.user.email);

    const owners: Record<string, number | null> = {};
    for (const n of report.newContacts) {
      const contact = await (await t.as(c.admin).get(`/contacts/${n.contactId}`)).json();
      owners[n.contactName] = contact.ownerId;
    }
    expect(owners).toEqual({ Ana: agent.user.id, Bia: agent.user.id, Enzo: null, Gabi: null });

    // The other company never sees these contacts, owner or not.
    const theirs = await (await t.as(other.admin).get('/contacts/list')).json();
    expect(JSON.stringify(theirs)).not.toContain('5511986660001');
  });
});
