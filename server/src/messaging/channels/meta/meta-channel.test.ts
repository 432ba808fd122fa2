import { describe, expect, test } from 'vitest';
import { and, asc, eq } from 'drizzle-orm';
import { contactIdentities, contacts, messages, tickets, whatsapps } from '../../../db/schema/index.js';
import { metaTestApp, type MetaKind } from '../../../../test/meta-fixtures.js';
import { waitFor } from '../../../../test/helpers.js';
import { metaGraphClient } from './meta-graph.js';

/**
 * #34 Instagram Direct and Facebook Messenger through the Messenger Platform, against the local Graph stand-in:
 * the webhook's handshake and signature, inbound text/media/echoes/postbacks stored once by mid, replies through
 * the outbox (text and files) with the 24-hour / HUMAN_AGENT / 7-day rules, and a second company kept out.
 */
const APP_SECRET = 'meta-app-secret-1';
const { t, db, graph, signedPost, delivery, fromCustomer, customerEvent, echo, metaConnection } =
  await metaTestApp(APP_SECRET);

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

const stored = (connectionId: number) =>
  db.select().from(messages).where(eq(messages.whatsappId, connectionId)).orderBy(asc(messages.id));

/** A customer writes; the ticket is accepted by the admin; answers the ticket id. */
async function openConversation(
  c: Awaited<ReturnType<typeof metaConnection>>,
  kind: MetaKind,
  customer: string,
  mid: string,
  at = Date.now(),
) {
  const res = await signedPost(
    c.connectionId,
    delivery(kind, [fromCustomer(kind, customer, { mid, text: 'Oi' }, at)]),
  );
  expect(res.status, await res.clone().text()).toBe(200);
  const [m] = await db
    .select()
    .from(messages)
    .where(and(eq(messages.whatsappId, c.connectionId), eq(messages.providerId, mid)));
  expect(m).toBeTruthy();
  expect((await t.as(c.admin).put(`/tickets/${m!.ticketId}`, { status: 'open' })).status).toBe(200);
  return m!.ticketId;
}

describe('the webhook handshake', () => {
  test('GET answers hub.challenge when hub.verify_token matches, 403 otherwise, 404 for other channels', async () => {
    const c = await metaConnection('MetaVerify', 'messenger');
    const q = (token: string) =>
      `${t.url}/api/webhooks/meta/${c.connectionId}?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`;
    const ok = await fetch(q('meta-verify-1'));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');
    expect((await fetch(q('wrong-token'))).status).toBe(403);
    // A simulator connection has no Meta webhook.
    const sim = await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' });
    const simId = (await sim.json()).id;
    expect(
      (
        await fetch(
          `${t.url}/api/webhooks/meta/${simId}?hub.mode=subscribe&hub.verify_token=x&hub.challenge=1`,
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await fetch(
          `${t.url}/api/webhooks/meta/99999999?hub.mode=subscribe&hub.verify_token=meta-verify-1&hub.challenge=1`,
        )
      ).status,
    ).toBe(404);
  });

  test('settings: secrets sealed at rest, masked in answers, required; the account id required per channel', async () => {
    const c = await metaConnection('MetaConfig', 'instagram');
    const [row] = await db.select().from(whatsapps).where(eq(whatsapps.id, c.connectionId));
    const raw = JSON.stringify(row!.channelConfig);
    expect(raw).not.toContain(APP_SECRET);
    expect(raw).not.toContain(graph.token);
    const shown = await (await t.as(c.admin).get(`/whatsapp/${c.connectionId}`)).json();
    expect(JSON.stringify(shown)).not.toContain(graph.token);
    expect(JSON.stringify(shown)).not.toContain(APP_SECRET);
    expect(shown.channelConfig).toMatchObject({
      instagramAccountId: graph.instagramAccountId,
      verifyToken: 'meta-verify-1',
      pageAccessTokenSealed: '********',
      appSecretSealed: '********',
    });
    // Saving without the secrets keeps them (the connection still verifies signatures with the old secret).
    const keep = await t.as(c.admin).put(`/whatsapp/${c.connectionId}`, {
      channelConfig: {
        instagramAccountId: graph.instagramAccountId,
        graphBaseUrl: graph.url,
        verifyToken: 'meta-verify-2',
      },
    });
    expect(keep.status, await keep.clone().text()).toBe(200);
    const ping = await fetch(
      `${t.url}/api/webhooks/meta/${c.connectionId}?hub.mode=subscribe&hub.verify_token=meta-verify-2&hub.challenge=7`,
    );
    expect(await ping.text()).toBe('7');
    // Messenger needs its page id; a new connection needs both secrets.
    const bad = await t.as(c.admin).post('/whatsapp', {
      name: 'M2',
      channel: 'messenger',
      channelConfig: { instagramAccountId: graph.instagramAccountId, appSecret: 'x' },
    });
    expect(bad.status).toBe(400);
    const body = await bad.json();
    expect(body.error).toBe('ERR_VALIDATION');
    expect(JSON.stringify(body)).toContain('pageId');
    expect(JSON.stringify(body)).toContain('pageAccessToken');
  });
});

describe('start-up', () => {
  test('a token Graph refuses, and an id Graph does not know, leave the connection DISCONNECTED with the reason', async () => {
    const c = await t.company('MetaStart');
    const make = async (channelConfig: Record<string, unknown>) => {
      const res = await t.as(c.admin).post('/whatsapp', {
        name: `M ${String(channelConfig.pageAccessToken).slice(0, 12)} ${String(channelConfig.pageId)}`,
        channel: 'messenger',
        channelConfig: { appSecret: 's', graphBaseUrl: graph.url, ...channelConfig },
      });
      expect(res.status, await res.clone().text()).toBe(201);
      const id = (await res.json()).id as number;
      return waitFor(async () => {
        const w = await (await t.as(c.admin).get(`/whatsapp/${id}`)).json();
        return w.status === 'DISCONNECTED' && w.statusReason ? w : null;
      });
    };
    const badToken = await make({ pageId: graph.pageId, pageAccessToken: 'EAAG-not-the-token' });
    expect(badToken.statusReason).toMatchObject({ reason: 'graph_rejected' });
    expect(JSON.stringify(badToken)).not.toContain('EAAG-not-the-token');
    const unknownPage = await make({ pageId: '999000999', pageAccessToken: graph.token });
    expect(unknownPage.statusReason).toMatchObject({ reason: 'graph_rejected' });
  });
});

describe('inbound', () => {
  test('Messenger: a text is stored once by mid with the profile name from Graph; redelivery stores nothing more', async () => {
    const c = await metaConnection('MetaInText', 'messenger');
    graph.profiles.set('24000000000000001', { first_name: 'Ana', last_name: 'Souza' });
    const payload = delivery('messenger', [
      fromCustomer('messenger', '24000000000000001', { mid: 'm_TEXT1', text: 'Olá pelo Messenger' }),
    ]);
    expect((await signedPost(c.connectionId, payload)).status).toBe(200);
    expect((await signedPost(c.connectionId, payload)).status).toBe(200);
    const rows = await stored(c.connectionId);
    expect(rows.map((m) => [m.providerId, m.body, m.fromMe])).toEqual([
      ['m_TEXT1', 'Olá pelo Messenger', false],
    ]);
    const [contact] = await db.select().from(contacts).where(eq(contacts.id, rows[0]!.contactId!));
    expect(contact).toMatchObject({ name: 'Ana Souza', number: '' });
    const ids = await db.select().from(contactIdentities).where(eq(contactIdentities.contactId, contact!.id));
    expect(ids.map((i) => [i.kind, i.value])).toEqual([['messenger', '24000000000000001']]);
    // The profile is asked once for the customer (cached), with the page token.
    const lookups = graph.requests.filter((r) => r.path.endsWith('/24000000000000001'));
    expect(lookups).toHaveLength(1);
    expect(lookups[0]!.authorization).toBe(`Bearer ${graph.token}`);
  });

  test('Instagram: text and an image, video, audio and file downloaded from their URLs into the media store', async () => {
    const c = await metaConnection('MetaInMedia', 'instagram');
    graph.profiles.set('17800000000000002', { name: 'Bia Lima', username: 'bialima' });
    const files = {
      image: [PNG, 'image/png', 'foto.png'],
      video: [Buffer.from('fake-mp4-bytes'), 'video/mp4', 'clip.mp4'],
      audio: [Buffer.from('fake-m4a-bytes'), 'audio/mp4', 'voz.m4a'],
      file: [Buffer.from('%PDF-1.4 fake'), 'application/pdf', 'pedido.pdf'],
    } as const;
    const events = [
      fromCustomer('instagram', '17800000000000002', { mid: 'ig_TEXT', text: 'Oi do Insta' }),
      ...Object.entries(files).map(([type, [data, mime, name]], i) =>
        fromCustomer('instagram', '17800000000000002', {
          mid: `ig_MEDIA${i}`,
          attachments: [{ type, payload: { url: graph.cdnFile(data, mime, name) } }],
        }),
      ),
    ];
    expect((await signedPost(c.connectionId, delivery('instagram', events))).status).toBe(200);
    const rows = await waitFor(async () => {
      const r = await stored(c.connectionId);
      return r.length === 5 && r.every((m) => m.providerId === 'ig_TEXT' || m.mediaUrl) ? r : null;
    });
    expect(rows[0]).toMatchObject({ body: 'Oi do Insta', fromMe: false });
    expect(rows.slice(1).map((m) => [m.mediaType, m.mediaName])).toEqual([
      ['image', 'foto.png'],
      ['video', 'clip.mp4'],
      ['audio', 'voz.m4a'],
      ['application', 'pedido.pdf'],
    ]);
    expect(await t.app.services.media.read(rows[1]!.mediaUrl!)).toEqual(PNG);
    expect(await t.app.services.media.read(rows[4]!.mediaUrl!)).toEqual(files.file[0]);
    const [contact] = await db.select().from(contacts).where(eq(contacts.id, rows[0]!.contactId!));
    expect(contact!.name).toBe('Bia Lima');
  });

  test("an attachment URL off Meta's hosts is not downloaded (outbound-URL guard); the message is kept", async () => {
    const c = await metaConnection('MetaInGuard', 'messenger');
    const before = graph.requests.length;
    const payload = delivery('messenger', [
      fromCustomer('messenger', '24000000000000009', {
        mid: 'm_EVIL',
        attachments: [{ type: 'image', payload: { url: 'http://169.254.169.254/latest/meta-data/x.png' } }],
      }),
    ]);
    await signedPost(c.connectionId, payload);
    const [m] = await waitFor(async () => {
      const r = await stored(c.connectionId);
      return r.length ? r : null;
    });
    expect(m!.providerId).toBe('m_EVIL');
    expect(m!.mediaUrl ?? null).toBeNull();
    expect(graph.requests.slice(before).some((r) => r.path.includes('latest'))).toBe(false);
    // The client itself: only Meta's hosts (or the customised Graph's own origin), never another local server.
    const client = metaGraphClient({
      channel: 'messenger',
      accountId: graph.pageId,
      pageAccessToken: graph.token,
      graphBaseUrl: graph.url,
      apiVersion: 'v21.0',
      allowPrivate: true,
    });
    await expect(client.downloadAttachment('http://169.254.169.254/latest/x.png')).rejects.toThrow(/refused/);
    await expect(client.downloadAttachment(`${t.url}/api/x.png`)).rejects.toThrow(/not one of Meta's/);
    const good = await client.downloadAttachment(graph.cdnFile(PNG, 'image/png', 'ok.png'));
    expect(good).toEqual({ data: PNG, mimetype: 'image/png' });
  });

  test("echoes are stored once as the page's own; postbacks and quick replies carry their payload; acks and edits apply", async () => {
    const c = await metaConnection('MetaInEvents', 'messenger');
    const customer = '24000000000000003';
    const tid = await openConversation(c, 'messenger', customer, 'm_FIRST');
    const events = [
      echo('messenger', customer, { mid: 'm_ECHO1', text: 'Respondido pelo inbox da Meta' }),
      customerEvent('messenger', customer, {
        postback: { mid: 'm_PB1', title: 'Ver pedidos', payload: 'ORDERS' },
      }),
      fromCustomer('messenger', customer, { mid: 'm_QR1', text: 'Sim', quick_reply: { payload: 'YES' } }),
      customerEvent('messenger', customer, {
        message_edit: { mid: 'm_QR1', text: 'Sim, por favor', num_edit: 1 },
      }),
    ];
    expect((await signedPost(c.connectionId, delivery('messenger', events))).status).toBe(200);
    expect((await signedPost(c.connectionId, delivery('messenger', events))).status).toBe(200);
    const rows = await stored(c.connectionId);
    const by = (id: string) => rows.find((m) => m.providerId === id);
    expect(rows.filter((m) => m.providerId === 'm_ECHO1')).toHaveLength(1);
    expect(by('m_ECHO1')).toMatchObject({
      fromMe: true,
      body: 'Respondido pelo inbox da Meta',
      ticketId: tid,
    });
    expect(by('m_PB1')).toMatchObject({ body: 'Ver pedidos', fromMe: false });
    expect(by('m_PB1')!.data).toMatchObject({ reply: { type: 'postback', id: 'ORDERS' } });
    expect(by('m_QR1')!.data).toMatchObject({ reply: { type: 'quick_reply', id: 'YES' } });
    expect(by('m_QR1')).toMatchObject({ body: 'Sim, por favor', isEdited: true });
    // A reply, then Meta's delivery and read receipts for it.
    const sent = await t.as(c.admin).post(`/messages/${tid}`, { body: 'Já vejo' });
    expect(sent.status, await sent.clone().text()).toBe(200);
    const mid = graph.messengerSent.at(-1)!.mid;
    await signedPost(
      c.connectionId,
      delivery('messenger', [
        customerEvent('messenger', customer, { delivery: { mids: [mid], watermark: Date.now() } }),
      ]),
    );
    expect((await db.select().from(messages).where(eq(messages.providerId, mid)))[0]!.ack).toBe(2);
    await signedPost(
      c.connectionId,
      delivery('messenger', [
        customerEvent('messenger', customer, { read: { watermark: Date.now() + 1000 } }),
      ]),
    );
    expect((await db.select().from(messages).where(eq(messages.providerId, mid)))[0]!.ack).toBe(3);
  });

  test('a bad signature is 401 and stores nothing; events of another page or object are ignored', async () => {
    const c = await metaConnection('MetaInSig', 'instagram');
    const payload = delivery('instagram', [
      fromCustomer('instagram', '17800000000000004', { mid: 'ig_SIG', text: 'forjada' }),
    ]);
    expect((await signedPost(c.connectionId, payload, 'not-the-app-secret')).status).toBe(401);
    const unsigned = await fetch(`${t.url}/api/webhooks/meta/${c.connectionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    expect(unsigned.status).toBe(401);
    // Signed, but a Messenger delivery on an Instagram connection, and another account's entry.
    const page = delivery('messenger', [
      fromCustomer('messenger', '24000000000000004', { mid: 'm_WRONGOBJ', text: 'x' }),
    ]);
    expect((await signedPost(c.connectionId, page)).status).toBe(200);
    const other = { ...payload, entry: [{ ...payload.entry[0]!, id: '17841499999999999' }] };
    expect((await signedPost(c.connectionId, other)).status).toBe(200);
    expect(await stored(c.connectionId)).toHaveLength(0);
  });
});

describe('replies through the outbox', () => {
  test("text and a file reach the Send API for the customer's PSID/IGSID as RESPONSE", async () => {
    for (const kind of ['messenger', 'instagram'] as const) {
      const c = await metaConnection(`MetaOut${kind}`, kind);
      const customer = kind === 'messenger' ? '24000000000000005' : '17800000000000005';
      const tid = await openConversation(c, kind, customer, `${kind}_OUT1`);
      const res = await t.as(c.admin).post(`/messages/${tid}`, { body: 'Olá! Como posso ajudar?' });
      expect(res.status, await res.clone().text()).toBe(200);
      const text = graph.messengerSent.at(-1)!;
      expect(text).toMatchObject({
        recipient: customer,
        messagingType: 'RESPONSE',
        message: { text: 'Olá! Como posso ajudar?' },
      });
      expect(text.tag).toBeUndefined();
      const msg = await res.json();
      expect((await db.select().from(messages).where(eq(messages.id, msg.id)))[0]).toMatchObject({
        providerId: text.mid,
        ack: 1,
      });
      // A file: uploaded to /me/message_attachments, then sent by its attachment id; the caption follows as text.
      const form = new FormData();
      form.append('body', 'Segue o boleto');
      form.append(
        'medias',
        new Blob([new Uint8Array(Buffer.from('%PDF-1.4 boleto'))], { type: 'application/pdf' }),
        'boleto.pdf',
      );
      const up = await fetch(`${t.url}/api/messages/${tid}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.admin.token}` },
        body: form,
      });
      expect(up.status, await up.clone().text()).toBe(200);
      const [file, caption] = graph.messengerSent.slice(-2);
      expect(file).toMatchObject({
        recipient: customer,
        messagingType: 'RESPONSE',
        message: { attachment: { type: 'file' } },
      });
      const att = graph.attachments.get(
        (file!.message.attachment as { payload: { attachment_id: string } }).payload.attachment_id,
      );
      expect(att).toMatchObject({ type: 'file', name: 'boleto.pdf', mimetype: 'application/pdf' });
      expect(att!.data.toString()).toBe('%PDF-1.4 boleto');
      expect(caption).toMatchObject({ recipient: customer, message: { text: 'Segue o boleto' } });
    }
  });

  test("after 24 hours a person's reply goes tagged HUMAN_AGENT; after 7 days it is refused before Meta is called", async () => {
    const c = await metaConnection('MetaWindow', 'messenger');
    const day = 24 * 3_600_000;
    const tid = await openConversation(c, 'messenger', '24000000000000006', 'm_WIN1', Date.now() - 3 * day);
    const win = await (await t.as(c.admin).get(`/messages/${tid}`)).json();
    expect(win.window).toMatchObject({ channel: 'messenger', open: true, tag: 'HUMAN_AGENT' });
    const res = await t.as(c.admin).post(`/messages/${tid}`, { body: 'Desculpe a demora' });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(graph.messengerSent.at(-1)).toMatchObject({
      recipient: '24000000000000006',
      messagingType: 'MESSAGE_TAG',
      tag: 'HUMAN_AGENT',
      message: { text: 'Desculpe a demora' },
    });
    // Eight days: nothing sent, a clear code.
    const old = await openConversation(c, 'messenger', '24000000000000007', 'm_WIN2', Date.now() - 8 * day);
    const count = graph.messengerSent.length;
    const refused = await t.as(c.admin).post(`/messages/${old}`, { body: 'Oi?' });
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toBe('ERR_OUTSIDE_HUMAN_AGENT_WINDOW');
    expect(graph.messengerSent.length).toBe(count);
    expect((await (await t.as(c.admin).get(`/messages/${old}`)).json()).window).toMatchObject({
      open: false,
    });
    // Inside 24 hours: a plain RESPONSE; a text over Meta's 2,000 characters goes as two messages.
    const fresh = await openConversation(c, 'messenger', '24000000000000008', 'm_WIN3');
    expect((await t.as(c.admin).post(`/messages/${fresh}`, { body: 'Oi!' })).status).toBe(200);
    expect(graph.messengerSent.at(-1)).toMatchObject({ messagingType: 'RESPONSE' });
    const long = `${'a'.repeat(1500)}\n${'b'.repeat(1000)}`;
    const before = graph.messengerSent.length;
    expect((await t.as(c.admin).post(`/messages/${fresh}`, { body: long })).status).toBe(200);
    expect(graph.messengerSent.slice(before).map((m) => m.message.text)).toEqual([
      'a'.repeat(1500),
      'b'.repeat(1000),
    ]);
  });
});

describe('a second company', () => {
  test("cannot see, change, reply through or post to the first one's connection", async () => {
    const a = await metaConnection('MetaIsoA', 'messenger');
    const tid = await openConversation(a, 'messenger', '24000000000000010', 'm_ISO1');
    const b = await t.company('MetaIsoB');
    const B = t.as(b.admin);
    expect((await B.get(`/whatsapp/${a.connectionId}`)).status).toBe(404);
    expect((await B.put(`/whatsapp/${a.connectionId}`, { name: 'mine' })).status).toBe(404);
    expect((await B.get(`/messages/${tid}`)).status).toBe(404);
    expect((await B.post(`/messages/${tid}`, { body: 'intruso' })).status).toBe(404);
    const list = await (await B.get('/whatsapp')).json();
    expect(JSON.stringify(list)).not.toContain(String(graph.pageId));
    // B's own Messenger connection has its own secret: signed with it, A's webhook refuses.
    const bConn = await t.as(b.admin).post('/whatsapp', {
      name: 'B Messenger',
      channel: 'messenger',
      channelConfig: {
        pageId: graph.pageId,
        pageAccessToken: graph.token,
        appSecret: 'b-secret',
        graphBaseUrl: graph.url,
      },
    });
    expect(bConn.status).toBe(201);
    const payload = delivery('messenger', [
      fromCustomer('messenger', '24000000000000011', { mid: 'm_ISO2', text: 'via B' }),
    ]);
    expect((await signedPost(a.connectionId, payload, 'b-secret')).status).toBe(401);
    expect((await stored(a.connectionId)).some((m) => m.providerId === 'm_ISO2')).toBe(false);
    const [ticket] = await db.select().from(tickets).where(eq(tickets.id, tid));
    expect(ticket!.companyId).toBe(a.id);
  });
});
