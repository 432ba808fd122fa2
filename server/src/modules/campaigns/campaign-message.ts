import { createHash } from 'node:crypto';

export interface Recipient {
  name: string;
  number: string;
  email: string;
}

const GREETING_TZ = 'America/Sao_Paulo';

/** Bom dia / Boa tarde / Boa noite by the hour in Brazil (the product's home time zone). */
export function greetingAt(now: Date): string {
  const hour = Number(
    new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hour12: false, timeZone: GREETING_TZ }).format(now),
  );
  if (hour >= 5 && hour < 12) return 'Bom dia';
  if (hour >= 12 && hour < 18) return 'Boa tarde';
  return 'Boa noite';
}

/**
 * Fills a campaign text for one recipient. Placeholders (case-insensitive, in braces): {nome} {name},
 * {primeiro-nome} {firstName}, {numero} {number}, {email}, {saudacao} {greeting}, {protocolo} {protocol};
 * then every campaign-settings variable as {shortcut}. Unknown placeholders stay as written.
 */
export function fillMessage(
  text: string,
  r: Recipient,
  ctx: { now: Date; protocol: string; variables: { key: string; value: string }[] },
): string {
  const firstName = r.name.trim().split(/\s+/)[0] ?? '';
  const builtIn: Record<string, string> = {
    nome: r.name,
    name: r.name,
    'primeiro-nome': firstName,
    firstname: firstName,
    numero: r.number,
    number: r.number,
    email: r.email,
    saudacao: greetingAt(ctx.now),
    greeting: greetingAt(ctx.now),
    protocolo: ctx.protocol,
    protocol: ctx.protocol,
  };
  const vars = new Map(ctx.variables.map((v) => [v.key.toLowerCase(), v.value]));
  return text.replace(/\{([\p{L}\p{N}_-]{1,40})\}/gu, (whole, key: string) => {
    const k = key.toLowerCase();
    return builtIn[k] ?? vars.get(k) ?? whole;
  });
}

/** The non-empty variants of a campaign, in order (message1…message5 or confirmationMessage1…5). */
export function variantsOf(c: Record<string, unknown>, prefix: 'message' | 'confirmationMessage'): string[] {
  return [1, 2, 3, 4, 5]
    .map((i) => c[`${prefix}${i}`])
    .filter((m): m is string => typeof m === 'string' && m.trim() !== '');
}

/** One variant at random (`random` in [0, 1)). */
export function pickVariant(variants: string[], random: () => number): string {
  if (!variants.length) return '';
  return variants[Math.min(variants.length - 1, Math.floor(random() * variants.length))]!;
}

/**
 * The provider id of one part of one shipping's send, fixed before the channel is called: the same id on
 * every attempt, shaped like WhatsApp's own ids (3EB0 + hex). part: 'm' main message, 'c' confirmation,
 * 'f0'… the file list's files.
 */
export function shippingProviderId(campaignId: number, shippingId: number, part: string): string {
  const hash = createHash('sha256')
    .update(`recado-campaign:${campaignId}:${shippingId}:${part}`)
    .digest('hex');
  return `3EB0${hash.slice(0, 18).toUpperCase()}`;
}

/**
 * The wait before the next send: the greater interval (exact) after every `longerIntervalAfter` sends,
 * otherwise a random wait between half the message interval and the whole of it. Seconds in, ms out.
 */
export function nextDelayMs(
  sendsSoFar: number,
  s: { messageInterval: number; longerIntervalAfter: number; greaterInterval: number },
  random: () => number,
): number {
  if (s.longerIntervalAfter > 0 && sendsSoFar > 0 && sendsSoFar % s.longerIntervalAfter === 0)
    return s.greaterInterval * 1000;
  if (s.messageInterval <= 0) return 0;
  const max = s.messageInterval * 1000;
  return Math.round(max / 2 + random() * (max / 2));
}
