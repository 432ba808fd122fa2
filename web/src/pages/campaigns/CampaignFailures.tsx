import { Box, Button, Card, CardContent, CircularProgress, Divider, Stack, Typography } from '@mui/material';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlineOutlined';
import { useTranslation } from 'react-i18next';
import { CLOUD_API_ERROR_CODES, type CampaignShipping } from '@recado/contracts';
import { useCampaignFailures } from '../../api/campaigns.js';

const KNOWN = new Set<number>(CLOUD_API_ERROR_CODES);

/** One failed recipient: who, Meta's code with what it means in words, and the provider's own text. */
function FailureRow({ s }: { s: CampaignShipping }) {
  const { t } = useTranslation();
  const known = s.errorCode != null && KNOWN.has(s.errorCode);
  return (
    <Box
      data-testid="campaign-failure"
      data-code={s.errorCode ?? ''}
      sx={{ py: 1, display: 'flex', flexDirection: 'column', gap: 0.25, minWidth: 0 }}
    >
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'baseline', flexWrap: 'wrap' }}>
        <Typography sx={{ fontWeight: 600 }}>{s.number}</Typography>
        {s.name ? (
          <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
            {s.name}
          </Typography>
        ) : null}
        {s.errorCode != null ? (
          <Typography variant="caption" color="error.main" sx={{ ml: 'auto' }}>
            {t('campaigns.failures.code', { code: s.errorCode })}
          </Typography>
        ) : null}
      </Stack>
      <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
        {known ? t(`campaigns.metaErrors.${s.errorCode}`) : (s.error ?? '—')}
      </Typography>
      {known && s.error ? (
        <Typography variant="caption" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
          {s.error}
        </Typography>
      ) : null}
    </Box>
  );
}

/**
 * The report's failed sends (docs/campaigns.md): each recipient the provider refused, with Meta's error
 * (131026 undeliverable, 131047 re-engagement…) in the user's language and as Meta said it.
 */
export function CampaignFailures({ campaignId, failed }: { campaignId: number; failed: number }) {
  const { t } = useTranslation();
  const q = useCampaignFailures(campaignId, failed);
  if (failed <= 0) return null;
  const rows = q.data?.pages.flatMap((p) => p.shippings) ?? [];
  return (
    <Card variant="outlined" data-testid="campaign-failures">
      <CardContent>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
          <ErrorOutlineIcon color="error" fontSize="small" />
          <Typography variant="subtitle1" sx={{ fontWeight: 600 }}>
            {t('campaigns.failures.title')}
          </Typography>
        </Stack>
        {q.isLoading ? (
          <CircularProgress size={20} />
        ) : !rows.length ? (
          <Typography color="text.secondary">{t('campaigns.failures.none')}</Typography>
        ) : (
          <Stack divider={<Divider flexItem />}>
            {rows.map((s) => (
              <FailureRow key={s.id} s={s} />
            ))}
          </Stack>
        )}
        {q.hasNextPage ? (
          <Button onClick={() => void q.fetchNextPage()} disabled={q.isFetchingNextPage} sx={{ mt: 1 }}>
            {t('campaigns.failures.more')}
          </Button>
        ) : null}
      </CardContent>
    </Card>
  );
}
