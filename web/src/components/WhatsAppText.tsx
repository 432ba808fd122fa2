import type { ReactNode } from 'react';
import { Box, Link } from '@mui/material';
import { parseWhatsApp, type Segment } from './whatsapp-format.js';

/** Marks where `mark` occurs in a piece of plain text (the chat's search); returns the text itself otherwise. */
export type Marker = (text: string, key: string) => ReactNode;

const codeSx = {
  fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
  fontSize: '0.92em',
  bgcolor: 'action.hover',
  borderRadius: 0.5,
  px: 0.4,
} as const;

function render(segments: Segment[], mark: Marker | undefined, links: boolean, prefix: string): ReactNode[] {
  const text = (s: string, key: string) => (mark ? mark(s, key) : s);
  return segments.map((s, i) => {
    const key = `${prefix}${i}`;
    switch (s.kind) {
      case 'text':
        return <span key={key}>{text(s.text, key)}</span>;
      case 'link':
        return links ? (
          <Link
            key={key}
            href={s.href}
            target="_blank"
            rel="noopener noreferrer"
            sx={{ overflowWrap: 'anywhere' }}
          >
            {text(s.href, key)}
          </Link>
        ) : (
          <span key={key}>{text(s.href, key)}</span>
        );
      case 'style': {
        const children = render(s.children, mark, links, `${key}.`);
        if (s.style === 'bold') return <strong key={key}>{children}</strong>;
        if (s.style === 'italic') return <em key={key}>{children}</em>;
        return <s key={key}>{children}</s>;
      }
      case 'code':
        return (
          <Box
            component="code"
            key={key}
            sx={s.block ? { ...codeSx, whiteSpace: 'pre-wrap' } : codeSx}
            data-block={s.block ? '' : undefined}
          >
            {text(s.text, key)}
          </Box>
        );
    }
  });
}

/**
 * WhatsApp-formatted text as React elements (never HTML strings): the one renderer of message text,
 * used by the chat bubbles, the ticket list, notifications, kanban cards and the simulator. `links`
 * makes addresses clickable (in a bubble; a list row is itself a link, so not there).
 */
export function WhatsAppText({
  text,
  mark,
  links = false,
}: {
  text: string;
  mark?: Marker;
  links?: boolean;
}) {
  return <>{render(parseWhatsApp(text), mark, links, 'w')}</>;
}
