import { describe, expect, test } from 'vitest';
import { countVariables, renderTemplate, templateNeeds, windowOpen } from './templates.js';

const order = [
  { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
  { type: 'BODY', text: 'Hello {{1}}, your order ships on {{2}}. Thanks, {{1}}!' },
  { type: 'FOOTER', text: 'Recado Store' },
  {
    type: 'BUTTONS',
    buttons: [
      { type: 'QUICK_REPLY', text: 'Thanks' },
      { type: 'URL', text: 'Track' },
    ],
  },
];

describe('message templates', () => {
  test('variables are counted by their highest number, repeats once', () => {
    expect(countVariables('Hi {{1}} and {{ 2 }}, {{1}}')).toBe(2);
    expect(countVariables('no variables')).toBe(0);
    expect(templateNeeds(order)).toEqual({ body: 2, header: 1, headerMedia: null });
    expect(
      templateNeeds([
        { type: 'HEADER', format: 'IMAGE' },
        { type: 'BODY', text: 'x' },
      ]),
    ).toEqual({
      body: 0,
      header: 0,
      headerMedia: 'image',
    });
  });

  test('rendered as WhatsApp shows it; missing values keep their placeholder', () => {
    expect(renderTemplate(order, { variables: ['Ana', 'Friday'], headerVariables: ['#7'] })).toBe(
      '*Order #7*\nHello Ana, your order ships on Friday. Thanks, Ana!\n_Recado Store_\n[Thanks]\n[Track]',
    );
    expect(renderTemplate(order, { variables: ['Ana'] })).toContain('ships on {{2}}');
  });

  test('the window binds Cloud API only, for 24 hours after the last customer message', () => {
    const now = new Date('2026-01-02T12:00:00Z');
    expect(windowOpen('baileys', null, now)).toBe(true);
    expect(windowOpen('cloud_api', null, now)).toBe(false);
    expect(windowOpen('cloud_api', '2026-01-01T12:00:01Z', now)).toBe(true);
    expect(windowOpen('cloud_api', '2026-01-01T12:00:00Z', now)).toBe(false);
  });
});
