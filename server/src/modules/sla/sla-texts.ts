import type { SlaKind } from '@recado/contracts';

/** What the admins' and supervisors' push says about a breach, in their language (pt is the fallback). */
const TEXTS = {
  pt: {
    kinds: {
      first_response: 'primeira resposta',
      next_response: 'próxima resposta',
      resolution: 'resolução',
    },
    title: (kind: string) => `SLA estourado: ${kind}`,
    body: (contact: string, queue: string) => (queue ? `${contact} · ${queue}` : contact),
  },
  en: {
    kinds: { first_response: 'first response', next_response: 'next response', resolution: 'resolution' },
    title: (kind: string) => `SLA breached: ${kind}`,
    body: (contact: string, queue: string) => (queue ? `${contact} · ${queue}` : contact),
  },
  es: {
    kinds: {
      first_response: 'primera respuesta',
      next_response: 'siguiente respuesta',
      resolution: 'resolución',
    },
    title: (kind: string) => `SLA incumplido: ${kind}`,
    body: (contact: string, queue: string) => (queue ? `${contact} · ${queue}` : contact),
  },
} satisfies Record<string, { kinds: Record<SlaKind, string>; [k: string]: unknown }>;

export const slaTexts = (language: string | null | undefined) =>
  TEXTS[(language ?? 'pt') as keyof typeof TEXTS] ?? TEXTS.pt;
