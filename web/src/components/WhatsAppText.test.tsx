import { describe, expect, test } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { splitSignature } from '@recado/contracts';
import { WhatsAppText } from './WhatsAppText.js';
import { parseWhatsApp, plainWhatsApp } from './whatsapp-format.js';
import { avatarColor, contactAvatar } from './avatar.js';

const html = (text: string, links = false) =>
  renderToStaticMarkup(<WhatsAppText text={text} links={links} />);
/** The markup without the MUI class names: the tags and the text. */
const tags = (text: string, links = false) =>
  html(text, links)
    .replace(/<style[^>]*>[^<]*<\/style>/g, '')
    .replace(/ class="[^"]*"/g, '')
    .replace(/<\/?span>/g, '');

describe('WhatsApp formatting', () => {
  test('a signature is bold, not raw asterisks', () => {
    expect(tags('*Ana Admin*:\nBom dia')).toBe('<strong>Ana Admin</strong>:\nBom dia');
  });

  test('bold, italic, strike, monospace and inline code, nested styles', () => {
    expect(tags('*b* _i_ ~s~')).toBe('<strong>b</strong> <em>i</em> <s>s</s>');
    expect(tags('*_both_*')).toBe('<strong><em>both</em></strong>');
    expect(tags('use `npm start` or ```a *b*\nc```')).toBe(
      'use <code>npm start</code> or <code data-block="">a *b*\nc</code>',
    );
  });

  test('markers inside words, around spaces or across lines stay as typed', () => {
    for (const raw of ['2*3*4', 'snake_case_name', '* not bold *', '*one\ntwo*', 'a ** b', '*1*2'])
      expect(plainWhatsApp(raw)).toBe(raw);
    expect(tags('Opção *1*: vendas')).toBe('Opção <strong>1</strong>: vendas');
  });

  test('HTML in a message is text, never markup', () => {
    const out = html('*<img src=x onerror=alert(1)>* <script>alert(1)</script>');
    expect(out).not.toContain('<img');
    expect(out).not.toContain('<script');
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  test('links only where asked for, without the sentence full stop', () => {
    expect(tags('see https://recado.local/x.')).toBe('see https://recado.local/x.');
    expect(tags('see https://recado.local/x.', true)).toContain(
      '<a href="https://recado.local/x" target="_blank" rel="noopener noreferrer">https://recado.local/x</a>.',
    );
    expect(parseWhatsApp('javascript:alert(1)')).toEqual([{ kind: 'text', text: 'javascript:alert(1)' }]);
  });

  test('plain text of a formatted message', () => {
    expect(plainWhatsApp('*Ana*:\n_oi_ ~x~')).toBe('Ana:\noi x');
  });
});

describe('signature', () => {
  test('splits the name line from the text', () => {
    expect(splitSignature('*Ana Admin*:\nBom dia\n*ok*')).toEqual({
      signature: '*Ana Admin*:\n',
      text: 'Bom dia\n*ok*',
    });
    expect(splitSignature('*Oferta* de hoje')).toEqual({ signature: '', text: '*Oferta* de hoje' });
  });
});

describe('avatar colour', () => {
  test('one colour per contact number, whatever the name', () => {
    const a = contactAvatar({ name: 'João Silva', number: '5511988880001' });
    const b = contactAvatar({ name: 'Joao (renamed)', number: '5511988880001' });
    expect(a.color).toBe(b.color);
    expect(a.color).toBe(avatarColor('5511988880001'));
    expect(a.initials).toBe('JS');
    expect(contactAvatar({ name: '5511988880001', number: '5511988880001' }).initials).toBe('#');
  });
});
