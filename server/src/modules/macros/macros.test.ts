import { describe, expect, test } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import {
  contacts,
  macros,
  messages,
  ticketEvents,
  ticketNotes,
  ticketTags,
  tickets,
} from '../../db/schema/index.js';
import { collectEvents, expectError, testApp, waitFor } from '../../../test/helpers.js';

// #32.1 Macros on a real server and database: CRUD, visibility, references of another company, and a run
// that is atomic per ticket (a failing action rolls back that ticket's earlier ones; the others go on).
const t = await testApp();
const db = t.database.db;

let seq = 0;
/** A company with a simulator connection, a tag, a queue and `n` tickets (open, the admin's). */
async function scenario(name: string, n = 1) {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  const tag = await (await t.as(c.admin).post('/tags', { name: `Tag${seq++}`, color: '#112233' })).json();
  const queue = await (
    await t.as(c.admin).post('/queue', { name: `Fila${seq++}`, color: '#445566', greetingMessage: '' })
  ).json();
  const made = await db
    .insert(contacts)
    .values(
      Array.from({ length: n }, (_, i) => ({
        companyId: c.id,
        name: `Cliente ${i} Silva`,
        number: `55119${String(70000000 + seq++ * 100 + i).padStart(8, '0')}`,
      })),
    )
    .returning({ id: contacts.id });
  const rows = await db
    .insert(tickets)
    .values(
      made.map((m) => ({
        companyId: c.id,
        contactId: m.id,
        whatsappId: w.id as number,
        userId: c.admin.user.id,
        status: 'open',
      })),
    )
    .returning({ id: tickets.id });
  return {
    ...c,
    whatsappId: w.id as number,
    tagId: tag.id as number,
    queueId: queue.id as number,
    ticketIds: rows.map((r) => r.id),
  };
}

describe('macros', () => {
  test('five actions on 50 tickets: atomic per ticket, one failing ticket rolled back, the others done', async () => {
    const s = await scenario('Macro50', 50);
    const macro = await t.as(s.admin).post('/macros', {
      name: 'Venda concluída',
      visibility: 'company',
      actions: [
        { type: 'add_tags', tagIds: [s.tagId] },
        { type: 'set_priority', priority: 3 },
        { type: 'add_note', text: 'Atendido por {{user}}' },
        { type: 'send_text', text: 'Obrigado, {{firstName}}! Protocolo {{protocol}}.' },
        { type: 'resolve' },
      ],
    });
    expect(macro.status).toBe(201);
    const { id } = await macro.json();
    // Ticket 17 waits in the queue (pending): sending (the 4th action) is refused there, after the tag,
    // the priority and the note were made in its transaction.
    const failing = s.ticketIds[17]!;
    await db.update(tickets).set({ status: 'pending', userId: null }).where(eq(tickets.id, failing));

    const res = await t.as(s.admin).post(`/macros/${id}/run`, { ticketIds: s.ticketIds });
    expect(res.status).toBe(200);
    const { results } = await res.json();
    expect(results).toHaveLength(50);
    expect(results.filter((r: { ok: boolean }) => r.ok)).toHaveLength(49);
    expect(results.find((r: { ticketId: number }) => r.ticketId === failing)).toMatchObject({
      ok: false,
      error: { code: 'ERR_NO_PERMISSION', action: 3 },
    });

    const done = s.ticketIds.filter((x) => x !== failing);
    const rows = await db.select().from(tickets).where(inArray(tickets.id, s.ticketIds));
    for (const r of rows) {
      if (r.id === failing)
        expect({ status: r.status, priority: r.priority }).toEqual({ status: 'pending', priority: 1 });
      else expect({ status: r.status, priority: r.priority }).toEqual({ status: 'closed', priority: 3 });
    }
    const tagged = await db.select().from(ticketTags).where(inArray(ticketTags.ticketId, s.ticketIds));
    expect(tagged.map((x) => x.ticketId).sort()).toEqual([...done].sort());
    const notes = await db.select().from(ticketNotes).where(inArray(ticketNotes.ticketId, s.ticketIds));
    expect(notes.map((x) => x.ticketId).sort()).toEqual([...done].sort());
    expect(notes[0]!.note).toMatch(/^Atendido por \S/);
    const sent = await db
      .select()
      .from(messages)
      .where(and(inArray(messages.ticketId, s.ticketIds), eq(messages.fromMe, true)));
    const texts = sent.filter((m) => m.body.startsWith('Obrigado'));
    expect(texts.map((m) => m.ticketId).sort()).toEqual([...done].sort());
    expect(texts.find((m) => m.ticketId === done[0])!.body).toMatch(/^Obrigado, Cliente! Protocolo \S+\.$/);
    // One timeline entry per ticket that ran, naming the macro and its actions; none for the failed one.
    const events = await db
      .select()
      .from(ticketEvents)
      .where(and(inArray(ticketEvents.ticketId, s.ticketIds), eq(ticketEvents.type, 'macro')));
    expect(events.map((e) => e.ticketId).sort()).toEqual([...done].sort());
    expect(events[0]!.data).toMatchObject({ name: 'Venda concluída', actions: expect.any(Array) });
    expect(events[0]!.actorId).toBe(s.admin.user.id);
    // The outbox worker sends them after the commit (simulator): acknowledged.
    await waitFor(async () => {
      const acked = await db
        .select({ ack: messages.ack })
        .from(messages)
        .where(
          inArray(
            messages.id,
            texts.map((m) => m.id),
          ),
        );
      return acked.every((m) => m.ack > 0);
    }, 60_000);
  }, 180_000);

  test('transfer, remove tags and snooze; a ticket the runner may not see is refused for it', async () => {
    const s = await scenario('MacroMore', 2);
    const user = await t.user(s.admin);
    await db.insert(ticketTags).values({ ticketId: s.ticketIds[0]!, tagId: s.tagId });
    const mk = await t.as(s.admin).post('/macros', {
      name: 'Adiar',
      visibility: 'company',
      actions: [
        { type: 'remove_tags', tagIds: [s.tagId] },
        { type: 'snooze', minutes: 60 },
      ],
    });
    const { id } = await mk.json();
    const ran = await (await t.as(s.admin).post(`/macros/${id}/run`, { ticketIds: [s.ticketIds[0]] })).json();
    expect(ran.results).toEqual([{ ticketId: s.ticketIds[0], ok: true }]);
    const [snoozed] = await db.select().from(tickets).where(eq(tickets.id, s.ticketIds[0]!));
    expect(snoozed!.snoozedUntil).not.toBeNull();
    expect(await db.select().from(ticketTags).where(eq(ticketTags.ticketId, s.ticketIds[0]!))).toEqual([]);

    // A plain user (not in the ticket's queue) runs the company macro on the admin's ticket: not theirs.
    await db.update(tickets).set({ queueId: s.queueId }).where(eq(tickets.id, s.ticketIds[1]!));
    const byUser = await (await t.as(user).post(`/macros/${id}/run`, { ticketIds: [s.ticketIds[1]] })).json();
    expect(byUser.results[0]).toMatchObject({ ok: false, error: { code: 'ERR_NO_PERMISSION' } });

    const tr = await (
      await t.as(s.admin).post('/macros', {
        name: 'Para a fila',
        actions: [{ type: 'transfer', queueId: s.queueId }],
      })
    ).json();
    const moved = await (
      await t.as(s.admin).post(`/macros/${tr.id}/run`, { ticketIds: [s.ticketIds[1]] })
    ).json();
    expect(moved.results[0].ok).toBe(true);
    const [row] = await db.select().from(tickets).where(eq(tickets.id, s.ticketIds[1]!));
    expect({ queueId: row!.queueId, status: row!.status, userId: row!.userId }).toEqual({
      queueId: s.queueId,
      status: 'pending',
      userId: null,
    });
  });

  test("personal macros are their owner's; company macros are made and changed by admins", async () => {
    const s = await scenario('MacroVis');
    const user = await t.user(s.admin);
    const personal = await (
      await t.as(s.admin).post('/macros', { name: 'Minha', actions: [{ type: 'set_priority', priority: 2 }] })
    ).json();
    expect(personal.visibility).toBe('personal');
    await expectError(await t.as(user).get(`/macros/${personal.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(
      await t.as(user).post(`/macros/${personal.id}/run`, { ticketIds: s.ticketIds }),
      404,
      'ERR_NOT_FOUND',
    );
    expect((await (await t.as(user).get('/macros')).json()).records).toEqual([]);
    await expectError(
      await t.as(user).post('/macros', {
        name: 'Da empresa',
        visibility: 'company',
        actions: [{ type: 'set_priority', priority: 2 }],
      }),
      403,
      'ERR_NO_PERMISSION',
    );
    const company = await (
      await t.as(s.admin).post('/macros', {
        name: 'Da empresa',
        visibility: 'company',
        actions: [{ type: 'set_priority', priority: 2 }],
      })
    ).json();
    const seen = await (await t.as(user).get('/macros/list')).json();
    expect(seen.map((m: { id: number }) => m.id)).toEqual([company.id]);
    expect(seen[0].canEdit).toBe(false);
    await expectError(await t.as(user).put(`/macros/${company.id}`, { name: 'X' }), 403, 'ERR_NO_PERMISSION');
    await expectError(await t.as(user).del(`/macros/${company.id}`), 403, 'ERR_NO_PERMISSION');
    const own = await (
      await t.as(user).post('/macros', { name: 'Minha também', actions: [{ type: 'add_note', text: 'ok' }] })
    ).json();
    expect((await t.as(user).put(`/macros/${own.id}`, { name: 'Renomeada' })).status).toBe(200);
    expect((await t.as(user).del(`/macros/${own.id}`)).status).toBe(200);
  });

  test('bad input: over 20 actions, unknown action, missing fields → 400 naming the field', async () => {
    const s = await scenario('MacroBad');
    const many = Array.from({ length: 21 }, () => ({ type: 'set_priority', priority: 1 }));
    const tooMany = await expectError(
      await t.as(s.admin).post('/macros', { name: 'Muitas', actions: many }),
      400,
      'ERR_VALIDATION',
    );
    expect(JSON.stringify(tooMany)).toContain('actions');
    await expectError(
      await t.as(s.admin).post('/macros', { name: 'X', actions: [{ type: 'explode' }] }),
      400,
      'ERR_VALIDATION',
    );
    const noTarget = await expectError(
      await t.as(s.admin).post('/macros', { name: 'X', actions: [{ type: 'transfer' }] }),
      400,
      'ERR_VALIDATION',
    );
    expect(JSON.stringify(noTarget)).toContain('queueId');
    expect(await db.select().from(macros).where(eq(macros.companyId, s.id))).toEqual([]);
  });
});

describe('a second company', () => {
  test("cannot read, change, run or hear the first one's macros, nor name its records", async () => {
    const a = await scenario('MacroA');
    const b = await scenario('MacroB');
    const sb = await t.socket(b.admin.token);
    const heard = collectEvents(sb, `company-${a.id}-macro`);
    const made = await (
      await t.as(a.admin).post('/macros', {
        name: 'Da A',
        visibility: 'company',
        actions: [{ type: 'add_tags', tagIds: [a.tagId] }],
      })
    ).json();
    expect(await heard).toEqual([]);
    await expectError(await t.as(b.admin).get(`/macros/${made.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(
      await t.as(b.admin).put(`/macros/${made.id}`, { name: 'Roubada' }),
      404,
      'ERR_NOT_FOUND',
    );
    await expectError(await t.as(b.admin).del(`/macros/${made.id}`), 404, 'ERR_NOT_FOUND');
    await expectError(
      await t.as(b.admin).post(`/macros/${made.id}/run`, { ticketIds: b.ticketIds }),
      404,
      'ERR_NOT_FOUND',
    );
    expect((await (await t.as(b.admin).get('/macros')).json()).records).toEqual([]);

    // B's macro naming A's tag, queue, user or quick message: 400 naming the field, nothing saved.
    const qa = await (
      await t.as(a.admin).post('/quick-messages', { shortcode: 'oi', message: 'Oi', geral: true })
    ).json();
    const cases = [
      [{ type: 'add_tags', tagIds: [b.tagId, a.tagId] }, 'actions.0.tagIds'],
      [{ type: 'transfer', queueId: a.queueId }, 'actions.0.queueId'],
      [{ type: 'transfer', userId: a.admin.user.id }, 'actions.0.userId'],
      [{ type: 'send_quick_message', quickMessageId: qa.id }, 'actions.0.quickMessageId'],
      [{ type: 'resolve', closingReasonId: 999999 }, 'actions.0.closingReasonId'],
    ] as const;
    for (const [action, path] of cases) {
      const body = await expectError(
        await t.as(b.admin).post('/macros', { name: 'Ruim', actions: [action] }),
        400,
        'ERR_VALIDATION',
      );
      expect(JSON.stringify(body)).toContain(path);
    }
    expect(await db.select().from(macros).where(eq(macros.companyId, b.id))).toEqual([]);
    // Nor by changing A's reference into its own macro later.
    const own = await (
      await t
        .as(b.admin)
        .post('/macros', { name: 'Da B', actions: [{ type: 'add_tags', tagIds: [b.tagId] }] })
    ).json();
    await expectError(
      await t.as(b.admin).put(`/macros/${own.id}`, { actions: [{ type: 'add_tags', tagIds: [a.tagId] }] }),
      400,
      'ERR_VALIDATION',
    );
    // B's own macro on A's tickets: refused per ticket, A's ticket untouched.
    const ran = await (await t.as(b.admin).post(`/macros/${own.id}/run`, { ticketIds: a.ticketIds })).json();
    expect(ran.results).toEqual([
      {
        ticketId: a.ticketIds[0],
        ok: false,
        error: expect.objectContaining({ code: 'ERR_NO_TICKET_FOUND' }),
      },
    ]);
    expect(await db.select().from(ticketTags).where(eq(ticketTags.ticketId, a.ticketIds[0]!))).toEqual([]);
  });
});
