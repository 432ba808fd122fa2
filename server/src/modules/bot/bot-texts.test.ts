import { describe, expect, test } from 'vitest';
import { BOT_TEXT_DEFAULTS, WEEKDAYS } from '@recado/contracts';
import { manualClock } from '../../lib/clock.js';
import { expectError, testApp, type Session } from '../../../test/helpers.js';
import { botKit, newNumber } from './bot-test-kit.js';

// 2026-11-23 is a Monday. São Paulo (the default company zone) is UTC-3.
const MONDAY_NOON = new Date('2026-11-23T15:00:00Z');
const MONDAY_NIGHT = new Date('2026-11-24T01:03:00Z'); // Monday 22:03 in São Paulo
const clock = manualClock(MONDAY_NOON);
const t = await testApp({ deps: { clock, jobs: { autoStart: false } } });
const { say, setup } = botKit(t);

const setSetting = async (admin: Session, key: string, value: string) =>
  expect((await t.as(admin).put(`/settings/${key}`, { value })).status).toBe(200);

const week = (start: string, end: string) =>
  WEEKDAYS.map((d) => ({ weekday: d, weekdayEn: d, startTime: start, endTime: end }));

async function closedCompany(name: string, language?: string) {
  const c = await t.company(name);
  if (language) await setSetting(c.admin, 'language', language);
  await setSetting(c.admin, 'scheduleType', 'company');
  const res = await t.as(c.admin).put(`/companies/${c.id}/schedules`, { schedules: week('08:00', '18:00') });
  expect(res.status).toBe(200);
  return c;
}

const TREE = [
  {
    name: 'Finance',
    greetingMessage: 'Finance:',
    orderQueue: 1,
    options: [
      { title: 'Bills', message: 'Bills:', children: [{ title: 'Copy', message: 'A copy is on its way.' }] },
      { title: 'Pix', message: 'Our key is the CNPJ.' },
    ],
  },
  { name: 'Sales', greetingMessage: 'Sales.', orderQueue: 2 },
];

describe('out of hours without a message of the connection', () => {
  test.each([
    ['pt', undefined],
    ['en', 'en'],
    ['es', 'es'],
  ] as const)(
    'a customer writing at 22:03 gets the default text in the company language (%s)',
    async (lang, set) => {
      clock.set(MONDAY_NOON);
      const c = await closedCompany(`BotNight-${lang}`, set);
      const { whatsappId } = await setup(c.admin, TREE, { outOfHoursMessage: '' });
      clock.set(MONDAY_NIGHT);
      const number = newNumber();
      expect(await say(c.admin, whatsappId, number, 'hello?')).toEqual([
        BOT_TEXT_DEFAULTS[lang].botOutOfHours,
      ]);
      // Once per closed period, as a message of its own would be.
      expect(await say(c.admin, whatsappId, number, 'anyone?')).toEqual([]);
    },
  );

  test("the admin's own default text wins; the connection's own message wins over both", async () => {
    clock.set(MONDAY_NOON);
    const c = await closedCompany('BotNightOwn', 'en');
    await setSetting(c.admin, 'botOutOfHours', 'We open at 8 am.');
    const quiet = await setup(c.admin, TREE, { outOfHoursMessage: '' });
    const own = await setup(c.admin, [{ name: 'Other' }], { outOfHoursMessage: 'Closed, see you!' });
    clock.set(MONDAY_NIGHT);
    expect(await say(c.admin, quiet.whatsappId, newNumber(), 'hi')).toEqual(['We open at 8 am.']);
    expect(await say(c.admin, own.whatsappId, newNumber(), 'hi')).toEqual(['Closed, see you!']);
  });

  test('a closed queue without a message of its own sends the default text too', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotQueueNight');
    await setSetting(c.admin, 'language', 'es');
    await setSetting(c.admin, 'scheduleType', 'queue');
    const { whatsappId } = await setup(c.admin, [
      { name: 'Night', orderQueue: 1, schedules: week('08:00', '09:00') },
      { name: 'Day', orderQueue: 2 },
    ]);
    const number = newNumber();
    clock.set(MONDAY_NIGHT);
    await say(c.admin, whatsappId, number, 'hola');
    expect(await say(c.admin, whatsappId, number, '1')).toEqual([BOT_TEXT_DEFAULTS.es.botOutOfHours]);
  });
});

describe('the fixed texts follow the company language and its own wording', () => {
  test('English: the invalid-answer notice and "Back" are in English; "back" goes back', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotEnglish');
    await setSetting(c.admin, 'language', 'en');
    const { whatsappId } = await setup(c.admin, TREE);
    const number = newNumber();
    const root = 'Finance:\n\n*1* - Bills\n*2* - Pix\n*0* - Back';
    await say(c.admin, whatsappId, number, 'hi');
    expect(await say(c.admin, whatsappId, number, '1')).toEqual([root]);
    expect(await say(c.admin, whatsappId, number, 'what?')).toEqual([
      `${BOT_TEXT_DEFAULTS.en.botInvalidAnswer}\n\n${root}`,
    ]);
    const [queues] = await say(c.admin, whatsappId, number, 'Back');
    expect(queues).toContain('*1* - Finance');
  });

  test('Spanish with the texts edited by the admin: the bot writes them and reads the edited back label', async () => {
    clock.set(MONDAY_NOON);
    const c = await t.company('BotSpanishOwn');
    await setSetting(c.admin, 'language', 'es');
    await setSetting(c.admin, 'botBackLabel', 'Menú anterior');
    await setSetting(c.admin, 'botInvalidAnswer', 'No entendí.');
    const { whatsappId } = await setup(c.admin, TREE);
    const number = newNumber();
    const root = 'Finance:\n\n*1* - Bills\n*2* - Pix\n*0* - Menú anterior';
    await say(c.admin, whatsappId, number, 'hola');
    expect(await say(c.admin, whatsappId, number, '1')).toEqual([root]);
    expect(await say(c.admin, whatsappId, number, '9')).toEqual([`No entendí.\n\n${root}`]);
    expect(await say(c.admin, whatsappId, number, 'menu anterior')).toEqual([
      expect.stringContaining('*2* - Sales'),
    ]);
    // Blank again: the Spanish default comes back.
    await setSetting(c.admin, 'botBackLabel', '');
    expect(await say(c.admin, whatsappId, number, '1')).toEqual([root.replace('Menú anterior', 'Volver')]);
  });

  test('the language setting takes pt, en or es only; another company keeps its own language', async () => {
    const a = await t.company('BotLangA');
    const b = await t.company('BotLangB');
    await expectError(await t.as(a.admin).put('/settings/language', { value: 'fr' }), 400, 'ERR_VALIDATION');
    await setSetting(a.admin, 'language', 'en');
    const other = await (await t.as(b.admin).get('/settings/language')).json();
    expect(other).toEqual({ key: 'language', value: 'pt' });
  });
});
