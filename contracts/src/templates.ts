import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';

/**
 * WhatsApp Cloud API message templates (docs/cloud-api.md): what the server keeps of Meta's
 * GET /{WABA-ID}/message_templates, what an attendant sends, and the rendering both sides share so the
 * preview and the stored message read exactly as WhatsApp shows the template.
 */
export const TemplateComponentView = z
  .looseObject({
    type: z.string(),
    format: z.string().optional(),
    text: z.string().optional(),
    buttons: z
      .array(
        z.looseObject({
          type: z.string(),
          text: z.string().optional(),
          url: z.string().optional(),
          phone_number: z.string().optional(),
        }),
      )
      .optional(),
  })
  .meta({ id: 'TemplateComponentView' });
export type TemplateComponentView = Wire<typeof TemplateComponentView>;

export const MessageTemplate = z
  .looseObject({
    id: z.number(),
    whatsappId: z.number(),
    name: z.string(),
    language: z.string(),
    category: z.string(),
    /** As Meta says it: APPROVED, PENDING, REJECTED, PAUSED, DISABLED… */
    status: z.string(),
    components: z.array(TemplateComponentView),
    /** Only approved templates can be sent; pickers list these only. */
    usable: z.boolean(),
    syncedAt: Timestamp,
  })
  .meta({ id: 'MessageTemplate' });
export type MessageTemplate = Wire<typeof MessageTemplate>;

/** The hours after the customer's last message in which free text may be sent (Meta's customer service window). */
export const WINDOW_HOURS = 24;

export const ConversationWindow = z
  .looseObject({
    /** The connection's channel; the window binds 'cloud_api', 'instagram' and 'messenger'. */
    channel: z.string(),
    /** When the customer last wrote on this connection (ISO), or null if never. */
    lastInboundAt: Timestamp.nullable(),
    /** Free text allowed now. */
    open: z.boolean(),
    /** #34 Instagram/Messenger: the message tag a reply goes with now (HUMAN_AGENT after 24 hours). */
    tag: z.enum(['HUMAN_AGENT']).nullable().optional(),
  })
  .meta({ id: 'ConversationWindow' });
export type ConversationWindow = Wire<typeof ConversationWindow>;

/**
 * #34 Instagram and Messenger (Meta's Messenger Platform): within 24 hours a reply goes as a RESPONSE; from 24
 * hours to 7 days after the customer's last message only a person may answer, tagged HUMAN_AGENT; later
 * nothing may be sent (docs/channels.md "Instagram and Messenger").
 */
export const HUMAN_AGENT_DAYS = 7;
export const isHumanAgentChannel = (channel: string) => channel === 'instagram' || channel === 'messenger';

const ageMs = (lastInboundAt: Date | string, now: Date) => now.getTime() - new Date(lastInboundAt).getTime();

/** Is free text allowed? `now` and `lastInboundAt` as dates or ISO strings. */
export function windowOpen(channel: string, lastInboundAt: Date | string | null, now: Date = new Date()) {
  const limitHours = isHumanAgentChannel(channel) ? HUMAN_AGENT_DAYS * 24 : WINDOW_HOURS;
  if (channel !== 'cloud_api' && !isHumanAgentChannel(channel)) return true;
  if (!lastInboundAt) return false;
  return ageMs(lastInboundAt, now) < limitHours * 3_600_000;
}

/** The message tag a reply needs now: HUMAN_AGENT on Instagram/Messenger after 24 hours (inside 7 days). */
export function messageTagFor(
  channel: string,
  lastInboundAt: Date | string | null,
  now: Date = new Date(),
): 'HUMAN_AGENT' | null {
  if (!isHumanAgentChannel(channel) || !windowOpen(channel, lastInboundAt, now)) return null;
  return ageMs(lastInboundAt!, now) < WINDOW_HOURS * 3_600_000 ? null : 'HUMAN_AGENT';
}

export const TemplateSendInput = z.object({
  name: z.string().trim().min(1).max(512),
  language: z.string().trim().min(2).max(15),
  /** Values for the body's {{1}}, {{2}}… in order. */
  variables: z.array(z.string().trim().min(1).max(1024)).max(30).default([]),
  /** Value for a text header's {{1}}. */
  headerVariables: z.array(z.string().trim().min(1).max(60)).max(1).default([]),
  /** A media header's file: a public https link Meta downloads. */
  headerMediaUrl: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional(),
});
export type TemplateSendInput = z.infer<typeof TemplateSendInput>;

const VAR = /\{\{\s*(\d+)\s*\}\}/g;

/** How many {{n}} a text holds (the highest n; Meta numbers them from 1 without gaps). */
export function countVariables(text: string | undefined): number {
  let max = 0;
  for (const m of (text ?? '').matchAll(VAR)) max = Math.max(max, Number(m[1]));
  return max;
}

/** What a template asks for: body variables, text-header variables, and a media header's kind. */
export function templateNeeds(components: TemplateComponentView[]) {
  const header = components.find((c) => c.type.toUpperCase() === 'HEADER');
  const body = components.find((c) => c.type.toUpperCase() === 'BODY');
  const headerFormat = header?.format?.toUpperCase();
  return {
    body: countVariables(body?.text),
    header: headerFormat === 'TEXT' || (header && !headerFormat) ? countVariables(header?.text) : 0,
    headerMedia:
      headerFormat === 'IMAGE' || headerFormat === 'VIDEO' || headerFormat === 'DOCUMENT'
        ? (headerFormat.toLowerCase() as 'image' | 'video' | 'document')
        : null,
  };
}

const fill = (text: string, values: string[]) =>
  text.replace(VAR, (whole, n: string) => values[Number(n) - 1] ?? whole);

/**
 * The template as text, as WhatsApp shows it: a bold text header, the body, the footer in italics, then one
 * line per button. Missing values keep their {{n}} (the preview shows what is still to be filled).
 */
export function renderTemplate(
  components: TemplateComponentView[],
  values: { variables?: string[]; headerVariables?: string[] } = {},
): string {
  const parts: string[] = [];
  for (const c of components) {
    const type = c.type.toUpperCase();
    if (type === 'HEADER' && c.text && (!c.format || c.format.toUpperCase() === 'TEXT'))
      parts.push(`*${fill(c.text, values.headerVariables ?? [])}*`);
    else if (type === 'BODY' && c.text) parts.push(fill(c.text, values.variables ?? []));
    else if (type === 'FOOTER' && c.text) parts.push(`_${c.text}_`);
    else if (type === 'BUTTONS' && c.buttons?.length)
      parts.push(c.buttons.map((b) => `[${b.text ?? b.type}]`).join('\n'));
  }
  return parts.join('\n');
}
