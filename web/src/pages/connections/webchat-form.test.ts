import { describe, expect, test } from 'vitest';
import { WebchatFormSchema, webchatChannelConfig, webchatFormValues, widgetSnippet } from './webchat-form.js';

describe('website chat section of the connection form', () => {
  test('allowed sites: one a line, trailing slashes dropped, paths refused', () => {
    const v = {
      ...webchatFormValues(null),
      allowedOrigins: 'https://shop.example/\nhttp://localhost:3000\n\n',
    };
    expect(WebchatFormSchema.safeParse(v).success).toBe(true);
    expect(webchatChannelConfig(v).allowedOrigins).toEqual(['https://shop.example', 'http://localhost:3000']);
    expect(
      WebchatFormSchema.safeParse({ ...v, allowedOrigins: 'https://shop.example/contato' }).success,
    ).toBe(false);
    expect(WebchatFormSchema.safeParse({ ...v, color: 'blue' }).success).toBe(false);
  });

  test('the snippet a site pastes', () => {
    expect(widgetSnippet('https://recado.example', 'wc_abc123')).toBe(
      '<script src="https://recado.example/widget.js" data-widget="wc_abc123" async></script>',
    );
  });
});
