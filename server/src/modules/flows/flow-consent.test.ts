import { expect, test } from 'vitest';
import { expectError, testApp } from '../../../test/helpers.js';
import { botKit, newNumber } from '../bot/bot-test-kit.js';
import { flowApi, graph } from './flow-test-kit.js';

/** #35.2 The consent node (docs/flows.md "consent"): asks the company's text, records yes/no, routes. */
const t = await testApp({ deps: { jobs: { autoStart: false } } });
const kit = botKit(t);

async function company(name: string) {
  const c = await t.company(name);
  const setup = await kit.setup(c.admin, [{ name: 'Fila' }]);
  return { c, ...setup, flows: flowApi(t, c.admin) };
}

const consentGraph = (data: Record<string, unknown> = {}) =>
  graph(
    [
      { id: 'ask', type: 'consent', data },
      { id: 'yes', type: 'message', data: { text: 'Obrigado!' } },
      { id: 'no', type: 'message', data: { text: 'Tudo bem, sem problemas.' } },
      { id: 'bad', type: 'message', data: { text: 'Não entendi.' } },
    ],
    [
      ['start', 'next', 'ask'],
      ['ask', 'accepted', 'yes'],
      ['ask', 'refused', 'no'],
      ['ask', 'invalid', 'bad'],
    ],
  );

test('the consent node asks once (not doubled by the bot), records yes/no with its time and routes', async () => {
  const { c, whatsappId, flows } = await company('FlowConsentA');
  const B = await company('FlowConsentB');
  await t.as(c.admin).put('/settings/privacy', { consentRequired: true, consentText: 'Aceita os termos?' });
  await flows.onConnection(whatsappId, consentGraph({ retryMessage: 'Responda SIM ou NÃO', maxRetries: 1 }));
  const consentOf = async (ticketContact: number) =>
    (await t.as(c.admin).get(`/contacts/${ticketContact}/consent`)).json();

  const yes = newNumber();
  // Only the node's question: the bot's own automatic ask is left to the flow.
  expect(await kit.say(c.admin, whatsappId, yes, 'oi')).toEqual(['Aceita os termos?']);
  const ty = await kit.ticketOf(c.id, whatsappId, yes);
  expect(await consentOf(ty!.contactId)).toMatchObject({ status: 'asked', replyBlocked: 'pending' });
  expect(await kit.say(c.admin, whatsappId, yes, 'talvez')).toEqual(['Responda SIM ou NÃO']);
  expect(await kit.say(c.admin, whatsappId, yes, 'Sim')).toEqual(['Obrigado!']);
  const granted = await consentOf(ty!.contactId);
  expect(granted).toMatchObject({ status: 'granted', replyBlocked: null });
  expect(granted.at).toBeTruthy();

  const no = newNumber();
  expect(await kit.say(c.admin, whatsappId, no, 'olá')).toEqual(['Aceita os termos?']);
  expect(await kit.say(c.admin, whatsappId, no, 'não')).toEqual(['Tudo bem, sem problemas.']);
  const tn = await kit.ticketOf(c.id, whatsappId, no);
  expect(await consentOf(tn!.contactId)).toMatchObject({ status: 'refused', replyBlocked: 'refused' });

  const odd = newNumber();
  expect(await kit.say(c.admin, whatsappId, odd, 'oi')).toEqual(['Aceita os termos?']);
  expect(await kit.say(c.admin, whatsappId, odd, 'talvez')).toEqual(['Responda SIM ou NÃO']);
  expect(await kit.say(c.admin, whatsappId, odd, 'quem sabe')).toEqual(['Não entendi.']);

  // Another company neither sees nor changes A's consent.
  await expectError(
    await t.as(B.c.admin).get(`/contacts/${ty!.contactId}/consent`),
    404,
    'ERR_NO_CONTACT_FOUND',
  );
  expect((await consentOf(tn!.contactId)).status).toBe('refused');

  // The node's own text wins over the company's; out-of-range numbers are refused by validation.
  const bad = await t.as(c.admin).post('/flows', { name: 'x', graph: consentGraph({ timeoutMinutes: 0 }) });
  expect(bad.status).toBe(400);
  const own = newNumber();
  await B.flows.onConnection(B.whatsappId, consentGraph({ text: 'Você aceita? (B)' }));
  expect(await kit.say(B.c.admin, B.whatsappId, own, 'oi')).toEqual(['Você aceita? (B)']);
  expect(await kit.say(B.c.admin, B.whatsappId, own, 'yes')).toEqual(['Obrigado!']);
});

test('a keyword-started flow with a consent node asks once, whoever asks first (the bot or the node)', async () => {
  const { c, whatsappId, flows } = await company('FlowConsentKw');
  await t.as(c.admin).put('/settings/privacy', { consentRequired: true, consentText: 'Aceita os termos?' });
  const g = consentGraph();
  (g.nodes[0]!.data as Record<string, unknown>) = {
    ...g.nodes[0]!.data,
    keywords: ['orçamento'],
    keywordMatch: 'contains',
    priority: 10,
  };
  const f = await flows.create(g, 'Orçamento com consentimento');
  await flows.publish(f.id);
  const n = newNumber();
  // One question, not the bot's and then the node's.
  expect(await kit.say(c.admin, whatsappId, n, 'Quero um orçamento')).toEqual(['Aceita os termos?']);
  const ticket = await kit.ticketOf(c.id, whatsappId, n);
  expect(await (await t.as(c.admin).get(`/contacts/${ticket!.contactId}/consent`)).json()).toMatchObject({
    status: 'asked',
  });
  // The answer to that one question moves the flow on.
  expect(await kit.say(c.admin, whatsappId, n, 'sim')).toEqual(['Obrigado!']);
  expect(await (await t.as(c.admin).get(`/contacts/${ticket!.contactId}/consent`)).json()).toMatchObject({
    status: 'granted',
  });
});

test('a flow an attendant starts right after the bot asked consent waits for that answer instead of asking again', async () => {
  const { c, whatsappId, flows } = await company('FlowConsentHand');
  await t.as(c.admin).put('/settings/privacy', { consentRequired: true, consentText: 'Aceita os termos?' });
  const f = await flows.create(consentGraph(), 'Coleta com consentimento');
  await flows.publish(f.id);
  const n = newNumber();
  // The bot asks on the new conversation (the connection has no flow).
  expect(await kit.say(c.admin, whatsappId, n, 'oi')).toContain('Aceita os termos?');
  const ticket = await kit.ticketOf(c.id, whatsappId, n);
  const before = (await kit.phone(c.admin, whatsappId, n)).length;
  const started = await t.as(c.admin).post(`/tickets/${ticket!.id}/flow`, { flowId: f.id });
  expect(started.status, await started.clone().text()).toBeLessThan(300);
  await kit.idle();
  // No second question: the node waits for the answer to the bot's.
  const after = (await kit.phone(c.admin, whatsappId, n)).slice(before).filter((m) => m.fromMe);
  expect(after.map((m) => m.body)).not.toContain('Aceita os termos?');
  expect(await kit.say(c.admin, whatsappId, n, 'sim')).toEqual(['Obrigado!']);
});
