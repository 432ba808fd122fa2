import { Box } from '@mui/material';
import { searchKey } from '@recado/contracts';

/** Characters of context kept before the match, so the match shows even on a one-line row. */
const BEFORE = 24;

/**
 * Where `search` occurs in `text`, blind to accents and case as the server's search is (docs/search.md):
 * [start, end) in `text`'s own characters, or null. Each character is folded alone, so positions map back.
 */
export function findMatch(text: string, search: string): [number, number] | null {
  const needle = searchKey(search.trim());
  if (!needle) return null;
  let folded = '';
  const origin: number[] = []; // origin[i]: the index in `text` of folded[i]
  const chars = Array.from(text);
  let at = 0;
  for (const ch of chars) {
    for (const f of searchKey(ch)) {
      folded += f;
      origin.push(at);
    }
    at += ch.length;
  }
  const i = folded.indexOf(needle);
  if (i < 0) return null;
  const last = origin[i + needle.length - 1]!;
  const end = last + (text.codePointAt(last)! > 0xffff ? 2 : 1);
  return [origin[i]!, end];
}

/** A search result's matching message: a little context, then the match highlighted. */
export function SearchSnippet({ text, search }: { text: string; search: string }) {
  const flat = text.replace(/\s+/g, ' ');
  const match = findMatch(flat, search);
  if (!match) return <span data-testid="search-snippet">{flat}</span>;
  const [start, end] = match;
  const from = Math.max(0, start - BEFORE);
  return (
    <span data-testid="search-snippet">
      {from > 0 ? '…' : ''}
      {flat.slice(from, start)}
      <Box
        component="mark"
        data-testid="search-highlight"
        sx={{
          // A highlighter's yellow with black text reads the same on light and dark rows.
          bgcolor: '#FFE082',
          color: '#000',
          borderRadius: 0.5,
          px: 0.25,
          fontWeight: 600,
        }}
      >
        {flat.slice(start, end)}
      </Box>
      {flat.slice(end)}
    </span>
  );
}
