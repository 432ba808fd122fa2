import { Box, Link, Tooltip, Typography } from '@mui/material';
import CampaignOutlinedIcon from '@mui/icons-material/CampaignOutlined';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { useTranslation } from 'react-i18next';
import type { TicketView } from '@recado/contracts';

/** Only web addresses become links (the metadata comes from outside: never a javascript: URL). */
export function safeUrl(raw: unknown): string | null {
  if (typeof raw !== 'string' || !raw.trim()) return null;
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** "source / medium", leaving out what is empty. */
export const originOf = (s: { source?: string; medium?: string }) =>
  [s.source, s.medium]
    .map((p) => p?.trim())
    .filter(Boolean)
    .join(' / ');

function Field({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Typography variant="caption" noWrap sx={{ minWidth: 0, maxWidth: 260 }} data-testid={testId}>
      <Box component="span" sx={{ color: 'text.secondary' }}>
        {label}:
      </Box>{' '}
      <Box component="span" sx={{ fontWeight: 600 }}>
        {value}
      </Box>
    </Typography>
  );
}

/**
 * The campaign-source strip (docs/product.md#screens): where the conversation came from when it started from an ad or a
 * tracked link — the link, the origin (source / medium) and the campaign.
 */
export function SourceStrip({ ticket }: { ticket: TicketView }) {
  const { t } = useTranslation();
  const source = ticket.ticketSourceTracking?.[0];
  if (!source) return null;
  const url = safeUrl(source.metadata?.sourceUrl);
  const origin = originOf(source);
  const campaign = source.campaign?.trim();
  if (!url && !origin && !campaign) return null;
  let host = '';
  if (url) host = new URL(url).host + new URL(url).pathname.replace(/\/$/, '');
  return (
    <Box
      data-testid="source-strip"
      role="note"
      aria-label={t('tickets.source.title')}
      sx={{
        display: 'flex',
        alignItems: 'center',
        flexWrap: 'wrap',
        columnGap: 2,
        rowGap: 0.25,
        px: 2,
        py: 0.5,
        borderBottom: 1,
        borderColor: 'divider',
        bgcolor: (theme) => (theme.palette.mode === 'light' ? '#fff8e1' : 'rgba(255, 193, 7, 0.08)'),
      }}
    >
      <Tooltip title={t('tickets.source.title')}>
        <CampaignOutlinedIcon fontSize="small" sx={{ color: 'warning.main' }} />
      </Tooltip>
      {url ? (
        <Typography variant="caption" noWrap sx={{ minWidth: 0, maxWidth: 320 }}>
          <Box component="span" sx={{ color: 'text.secondary' }}>
            {t('tickets.source.link')}:
          </Box>{' '}
          <Link
            href={url}
            target="_blank"
            rel="noopener noreferrer"
            data-testid="source-link"
            sx={{ fontWeight: 600 }}
          >
            {host || url}
            <OpenInNewIcon sx={{ fontSize: 12, ml: 0.25, verticalAlign: 'middle' }} />
          </Link>
        </Typography>
      ) : null}
      {origin ? <Field label={t('tickets.source.origin')} value={origin} testId="source-origin" /> : null}
      {campaign ? (
        <Field label={t('tickets.source.campaign')} value={campaign} testId="source-campaign" />
      ) : null}
    </Box>
  );
}
