import { useEffect, type ReactNode } from 'react';
import { Link as RouterLink, useParams } from 'react-router';
import {
  Box,
  Button,
  Card,
  CardContent,
  CircularProgress,
  LinearProgress,
  Stack,
  Typography,
} from '@mui/material';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlined';
import EventAvailableOutlinedIcon from '@mui/icons-material/EventAvailableOutlined';
import EventOutlinedIcon from '@mui/icons-material/EventOutlined';
import GroupOutlinedIcon from '@mui/icons-material/GroupOutlined';
import ListAltOutlinedIcon from '@mui/icons-material/ListAltOutlined';
import WhatsAppIcon from '@mui/icons-material/WhatsApp';
import { useTranslation } from 'react-i18next';
import { CAMPAIGN_REPORT_RELOAD_MS } from '@recado/contracts';
import { useCampaignReport, useCampaignsRealtime } from '../../api/campaigns.js';
import { CampaignFailures } from './CampaignFailures.js';
import { PageHeader } from '../../components/PageHeader.js';
import { CampaignStatusChip } from './campaign-ui.js';
import { useDateFormat } from '../../i18n/format.js';

function InfoCard({
  icon,
  label,
  value,
  testId,
}: {
  icon: ReactNode;
  label: string;
  value: ReactNode;
  testId: string;
}) {
  return (
    <Card variant="outlined" sx={{ height: '100%' }}>
      <CardContent sx={{ display: 'flex', gap: 2, alignItems: 'center' }}>
        <Box
          sx={{
            width: 44,
            height: 44,
            borderRadius: 2,
            display: 'grid',
            placeItems: 'center',
            bgcolor: 'action.selected',
            color: 'primary.main',
            flexShrink: 0,
          }}
        >
          {icon}
        </Box>
        <Box sx={{ minWidth: 0 }}>
          <Typography variant="body2" color="text.secondary">
            {label}
          </Typography>
          <Typography variant="h6" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }} data-testid={testId}>
            {value}
          </Typography>
        </Box>
      </CardContent>
    </Card>
  );
}

/**
 * Campaign report (docs/campaigns.md): status and "delivered of valid", a progress bar, and cards. Live
 * events replace the figures; once the campaign is FINALIZADA the data is read again 5 s later.
 */
export default function CampaignReportPage() {
  const { t } = useTranslation();
  const { dateTime: formatDateTime } = useDateFormat();
  const id = Number(useParams().campaignId);
  const report = useCampaignReport(id);
  useCampaignsRealtime();
  const c = report.data;
  const status = c?.status;
  const { refetch } = report;

  useEffect(() => {
    if (status !== 'FINALIZADA') return;
    const timer = setTimeout(() => void refetch(), CAMPAIGN_REPORT_RELOAD_MS);
    return () => clearTimeout(timer);
  }, [status, refetch]);

  if (report.isLoading)
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', p: 6 }}>
        <CircularProgress />
      </Box>
    );
  if (!c)
    return (
      <Box sx={{ p: 3 }}>
        <Typography color="text.secondary">{t('campaigns.notFound')}</Typography>
      </Box>
    );

  const { valid, delivered } = c.counts;
  const percent = valid > 0 ? Math.min(100, (delivered / valid) * 100) : 0;
  const none = (key: string) => (
    <Typography component="span" color="text.secondary" sx={{ fontStyle: 'italic', fontWeight: 400 }}>
      {t(key)}
    </Typography>
  );

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2.5 }}>
      <PageHeader title={t('campaigns.reportTitle', { name: c.name })}>
        <Button component={RouterLink} to="/campaigns" startIcon={<ArrowBackIcon />} color="inherit">
          {t('campaigns.back')}
        </Button>
      </PageHeader>
      <Card variant="outlined">
        <CardContent>
          <Stack
            direction="row"
            spacing={1.5}
            useFlexGap
            sx={{ mb: 1.5, alignItems: 'center', flexWrap: 'wrap' }}
          >
            <CampaignStatusChip status={c.status} />
            <Typography data-testid="campaign-delivered-of-valid">
              {t('campaigns.deliveredOfValid', { delivered, valid })}
            </Typography>
            <Typography
              variant="body2"
              color="text.secondary"
              sx={{ ml: 'auto' }}
              data-testid="campaign-percent"
            >
              {Math.floor(percent)}%
            </Typography>
          </Stack>
          <LinearProgress
            variant="determinate"
            value={percent}
            sx={{ height: 10, borderRadius: 5 }}
            aria-label={t('campaigns.progress')}
            data-testid="campaign-progress"
          />
          <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
            {t('campaigns.sentSummary', {
              sent: c.counts.sent,
              failed: c.counts.failed,
              pending: c.counts.pending,
            })}
          </Typography>
        </CardContent>
      </Card>
      <Box
        sx={{
          display: 'grid',
          gap: 2,
          gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', lg: 'repeat(3, 1fr)' },
        }}
      >
        <InfoCard
          icon={<GroupOutlinedIcon />}
          label={t('campaigns.validContacts')}
          value={valid}
          testId="card-valid"
        />
        <InfoCard
          icon={<CheckCircleOutlineIcon />}
          label={t('campaigns.delivered')}
          value={delivered}
          testId="card-delivered"
        />
        <InfoCard
          icon={<WhatsAppIcon />}
          label={t('campaigns.whatsapp')}
          value={c.whatsapp?.name ?? none('campaigns.notDefined')}
          testId="card-whatsapp"
        />
        <InfoCard
          icon={<ListAltOutlinedIcon />}
          label={c.tag ? t('campaigns.tag') : t('campaigns.contactList')}
          value={c.contactList?.name ?? c.tag?.name ?? none('campaigns.notDefined')}
          testId="card-list"
        />
        <InfoCard
          icon={<EventOutlinedIcon />}
          label={t('campaigns.schedule')}
          value={c.scheduledAt ? formatDateTime(c.scheduledAt) : none('campaigns.notScheduled')}
          testId="card-scheduled"
        />
        <InfoCard
          icon={<EventAvailableOutlinedIcon />}
          label={t('campaigns.conclusion')}
          value={c.completedAt ? formatDateTime(c.completedAt) : none('campaigns.notConcluded')}
          testId="card-completed"
        />
      </Box>
      <CampaignFailures campaignId={c.id} failed={c.counts.failed} />
    </Box>
  );
}
