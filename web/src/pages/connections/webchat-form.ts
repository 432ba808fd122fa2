import { z } from 'zod';
import { WebchatConfig, WidgetOrigin, type Whatsapp } from '@recado/contracts';

/** #34.1 The connection form's website chat section: its values, validation, and the channelConfig sent. */
export interface WebchatForm {
  color: string;
  position: 'left' | 'right';
  title: string;
  greeting: string;
  /** One origin a line. */
  allowedOrigins: string;
  preChatForm: boolean;
  preChatContact: 'email' | 'phone' | 'either';
  consentText: string;
  offlineForm: boolean;
}

export function webchatFormValues(w: Whatsapp | null): WebchatForm {
  const parsed = WebchatConfig.safeParse(w?.channel === 'webchat' ? w.channelConfig : {});
  const c = parsed.success ? parsed.data : WebchatConfig.parse({});
  return {
    color: c.color,
    position: c.position,
    title: c.title,
    greeting: c.greeting,
    allowedOrigins: c.allowedOrigins.join('\n'),
    preChatForm: c.preChatForm,
    preChatContact: c.preChatContact,
    consentText: c.consentText,
    offlineForm: c.offlineForm,
  };
}

const lines = (s: string) =>
  s
    .split(/[\n,]/)
    .map((l) => l.trim().replace(/\/+$/, ''))
    .filter(Boolean);

export const WebchatFormSchema = z.object({
  color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'webchat:invalidColor'),
  position: z.enum(['left', 'right']),
  title: z.string().max(60),
  greeting: z.string().max(500),
  allowedOrigins: z
    .string()
    .refine((s) => lines(s).every((l) => WidgetOrigin.safeParse(l).success), 'webchat:invalidOrigin')
    .refine((s) => lines(s).length <= 50, 'webchat:invalidOrigin'),
  preChatForm: z.boolean(),
  preChatContact: z.enum(['email', 'phone', 'either']),
  consentText: z.string().max(500),
  offlineForm: z.boolean(),
});

/** The channelConfig sent (the server keeps the public id). */
export const webchatChannelConfig = (v: WebchatForm) => ({
  ...v,
  title: v.title.trim(),
  greeting: v.greeting.trim(),
  consentText: v.consentText.trim(),
  allowedOrigins: lines(v.allowedOrigins),
});

/** The snippet a site pastes. */
export const widgetSnippet = (recado: string, publicId: string) =>
  `<script src="${recado}/widget.js" data-widget="${publicId}" async></script>`;
