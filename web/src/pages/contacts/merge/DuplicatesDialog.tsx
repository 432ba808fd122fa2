import { useState } from 'react';
import {
  Box,
  Button,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Paper,
  Typography,
} from '@mui/material';
import { formatNumber, type ContactDuplicate, type ContactView } from '@recado/contracts';
import { useDuplicates } from '../../../api/merge.js';
import { MergeDialog } from './MergeDialog.js';
import { useMergeT } from './merge-i18n.js';

/** #32.8 "Possíveis duplicados": the server's suggestions, each with a one-click merge into the older contact. */
export function DuplicatesDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const { t } = useMergeT();
  const list = useDuplicates(open);
  const [pair, setPair] = useState<{ survivor: ContactView; other: ContactView } | null>(null);
  const items: ContactDuplicate[] = list.data?.pages.flatMap((p) => p.duplicates) ?? [];
  return (
    <>
      <Dialog open={open} onClose={onClose} fullWidth maxWidth="md" aria-labelledby="duplicates-title">
        <DialogTitle id="duplicates-title">{t('duplicates')}</DialogTitle>
        <DialogContent sx={{ display: 'flex', flexDirection: 'column', gap: 1.5 }}>
          {list.isLoading ? <CircularProgress size={24} /> : null}
          {!list.isLoading && items.length === 0 ? (
            <Typography color="text.secondary">{t('duplicatesEmpty')}</Typography>
          ) : null}
          {items.map((d) => {
            const [a, b] = d.contacts as [ContactView, ContactView];
            return (
              <Paper
                key={`${d.reason}-${a.id}-${b.id}`}
                variant="outlined"
                sx={{ p: 1.5, display: 'flex', flexWrap: 'wrap', gap: 1, alignItems: 'center' }}
                data-testid="duplicate-row"
              >
                <Chip size="small" label={t(`reason_${d.reason}`)} />
                <Box sx={{ flex: '1 1 260px', minWidth: 0 }}>
                  {[a, b].map((c) => (
                    <Typography key={c.id} variant="body2" noWrap>
                      {c.name} · {c.number ? formatNumber(c.number) : '—'}
                      {c.email ? ` · ${c.email}` : ''}
                    </Typography>
                  ))}
                </Box>
                <Button size="small" variant="outlined" onClick={() => setPair({ survivor: a, other: b })}>
                  {t('mergePair', { name: a.name })}
                </Button>
              </Paper>
            );
          })}
          {list.hasNextPage ? (
            <Button onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
              {t('loadMore')}
            </Button>
          ) : null}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{t('common.close')}</Button>
        </DialogActions>
      </Dialog>
      <MergeDialog
        survivor={pair?.survivor ?? null}
        other={pair?.other ?? null}
        onClose={() => setPair(null)}
      />
    </>
  );
}
