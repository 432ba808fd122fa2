import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import type { proto } from 'baileys';
import { ticketSourceTracking, tickets } from '../db/schema/index.js';
import { collectEvents, nextEvent, waitFor } from '../../test/helpers.js';
import { cloudTestApp } from '../../test/cloud-api-fixtures.js';
import { toReferral } from './channels/cloud-api/cloud-api-webhook.js';
import { adReferral } from './channels/baileys/baileys-mapping.js';

/**
 * Source tracking end to end: a customer who arrives through a click-to-WhatsApp ad (Meta's webhook
 * `referral`) opens a ticket whose ticketSourceTracking says where they came from.
 */
const APP_SECRET = 'tracking-app-secret';
const { t, db, signedPost, webhookMessage, cloudConnection: connect } = await cloudTestApp(APP_SECRET);
const inbound = (from: string, id: string, body: string, referral?: Record<string, unknown>) =>
  webhookMessage(from, id, 'Lead', { type: 'text', text: { body }, ...(referral ? { referral } : {}) });

const AD = {
  source_url: 'https://fb.me/3cr4Wqqkh',
  source_id: '120208931122100',
  source_type: 'ad',
  headline: 'Black Friday: 30% off',
  body: 'Talk to us on WhatsApp',
  media_type: 'image',
  image_url: 'https://scontent.example/ad.jpg',
  ctwa_clid:
    'ARAkLkA8rmlFeiCktEJQ-QTwRiyYHAFDLMNDBH0CD3qpjd0HR4irJ6LEkR7JwFF4XvnO2E4Nx0-eM-GABDLOPaOdRMv-_zctNHEKA',
};

const cloudConnection = (name: string) => connect(name, 'Ads');

describe('source tracking from ads', () => {
  test('a customer from a click-to-WhatsApp ad opens a ticket that records the ad, live and on reload', async () => {
    const c = await cloudConnection('AdsCo');
    const socket = await t.socket(c.admin.token);
    await new Promise((resolve) => socket.emit('joinTickets', 'pending', resolve));
    const event = nextEvent<{ action: string; ticket: { ticketSourceTracking: unknown[] } }>(
      socket,
      `company-${c.id}-ticket`,
      15_000,
    );
    const res = await signedPost(c.whatsappId, inbound('5511944441111', 'wamid.AD1', 'Quero o desconto', AD));
    expect(res.status).toBe(200);

    const expected = {
      campaign: 'Black Friday: 30% off',
      source: 'facebook',
      medium: 'ad',
      metadata: expect.objectContaining({
        sourceUrl: 'https://fb.me/3cr4Wqqkh',
        sourceId: '120208931122100',
        ctwaClid: AD.ctwa_clid,
      }),
    };
    // The event that announces the new ticket already carries it (the chat's strip needs no reload).
    const live = await event;
    expect(live.ticket.ticketSourceTracking).toEqual([expect.objectContaining(expected)]);

    const [ticket] = await db.select().from(tickets).where(eq(tickets.whatsappId, c.whatsappId));
    const view = await (await t.as(c.admin).get(`/tickets/${ticket!.id}`)).json();
    expect(view.ticketSourceTracking).toEqual([
      expect.objectContaining({ ...expected, uuid: expect.any(String), createdAt: expect.any(String) }),
    ]);
    const byUuid = await (await t.as(c.admin).get(`/tickets/u/${ticket!.uuid}`)).json();
    expect(byUuid.ticketSourceTracking[0].campaign).toBe('Black Friday: 30% off');

    // Later messages of the same ticket (even from an ad again) add nothing; a plain customer adds nothing.
    await signedPost(c.whatsappId, inbound('5511944441111', 'wamid.AD2', 'Oi de novo', AD));
    await signedPost(c.whatsappId, inbound('5511944442222', 'wamid.PLAIN', 'Sem anúncio'));
    await waitFor(
      async () => (await db.select().from(tickets).where(eq(tickets.whatsappId, c.whatsappId))).length === 2,
    );
    const rows = await db.select().from(ticketSourceTracking);
    expect(rows.filter((r) => r.companyId === c.id)).toHaveLength(1);
    expect(rows[0]!.ticketId).toBe(ticket!.id);

    // Another company can neither read the ticket, its tracking, nor hear about it.
    const other = await t.company('Rival');
    expect((await t.as(other.admin).get(`/tickets/${ticket!.id}`)).status).toBe(404);
    expect((await t.as(other.admin).get(`/tickets/u/${ticket!.uuid}`)).status).toBe(404);
    const spy = await t.socket(other.admin.token);
    await new Promise((resolve) => spy.emit('joinTickets', 'pending', resolve));
    const heard = collectEvents(spy, `company-${c.id}-ticket`, 800);
    await signedPost(c.whatsappId, inbound('5511944443333', 'wamid.AD3', 'Outro lead', AD));
    expect(await heard).toEqual([]);
  });
});

describe('referral mapping', () => {
  test('Cloud API referral: headline as campaign, the network from the link, the rest as metadata', () => {
    expect(toReferral({ ...AD, source_url: 'https://www.instagram.com/p/abc' })).toMatchObject({
      campaign: 'Black Friday: 30% off',
      source: 'instagram',
      medium: 'ad',
      sourceUrl: 'https://www.instagram.com/p/abc',
      metadata: { sourceId: '120208931122100', sourceType: 'ad', headline: 'Black Friday: 30% off' },
    });
    // A post without a headline: its id names it.
    expect(toReferral({ source_id: '999', source_type: 'post' })).toMatchObject({
      campaign: '999',
      medium: 'post',
      source: 'meta',
    });
  });

  test('Baileys contextInfo: externalAdReply and the conversion fields', () => {
    const ci: proto.IContextInfo = {
      conversionSource: 'FB_Ads',
      entryPointConversionApp: 'instagram',
      externalAdReply: {
        title: 'Promo de verão',
        body: 'Chame no WhatsApp',
        sourceType: 'ad',
        sourceId: '55501',
        sourceUrl: 'https://www.instagram.com/p/xyz',
        ctwaClid: 'clid-1',
      },
    };
    expect(adReferral(ci)).toEqual({
      campaign: 'Promo de verão',
      source: 'instagram',
      medium: 'ad',
      sourceUrl: 'https://www.instagram.com/p/xyz',
      metadata: {
        sourceId: '55501',
        sourceType: 'ad',
        headline: 'Promo de verão',
        body: 'Chame no WhatsApp',
        ctwaClid: 'clid-1',
        conversionSource: 'FB_Ads',
        conversionApp: 'instagram',
      },
    });
    expect(adReferral({ stanzaId: 'x', isForwarded: true })).toBeUndefined();
  });
});
