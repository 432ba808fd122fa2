import { Link as RouterLink } from 'react-router';
import { IconButton, Tooltip, Typography } from '@mui/material';
import AssessmentOutlinedIcon from '@mui/icons-material/AssessmentOutlined';
import PauseCircleOutlineIcon from '@mui/icons-material/PauseCircleOutlined';
import PlayCircleOutlineIcon from '@mui/icons-material/PlayCircleOutlined';
import { useTranslation } from 'react-i18next';
import { can, type Campaign } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { campaignResource, useCampaignAction } from '../../api/campaigns.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { CampaignDialog } from './CampaignDialog.js';
import { CampaignStatusChip, useCampaignErrors } from './campaign-ui.js';
import { useDateFormat } from '../../i18n/format.js';

function Placeholder({ children }: { children: string }) {
  return (
    <Typography component="span" variant="body2" color="text.secondary" sx={{ fontStyle: 'italic' }}>
      {children}
    </Typography>
  );
}

/** Campaigns (docs/campaigns.md): search, infinite scroll, row actions by status, the add/edit dialog. */
export default function CampaignsPage() {
  const { t } = useTranslation();
  const { dateTime: formatDateTime } = useDateFormat();
  const { user } = useAuth();
  const toast = useToast();
  const showError = useCampaignErrors();
  const manage = can(user, 'admin-menu:view') || Boolean(user?.super);
  const action = useCampaignAction();

  const run = async (c: Campaign, kind: 'cancel' | 'restart') => {
    try {
      await action.mutateAsync({ id: c.id, action: kind });
      toast.success(kind === 'cancel' ? 'campaigns.canceled' : 'campaigns.restarted');
    } catch (err) {
      showError(err);
    }
  };

  const columns: ResourceColumn<Campaign>[] = [
    { header: t('campaigns.name'), sx: { fontWeight: 500 }, cell: (c) => c.name },
    {
      header: t('campaigns.statusLabel'),
      align: 'center',
      cell: (c) => <CampaignStatusChip status={c.status} />,
    },
    {
      header: t('campaigns.contactList'),
      cell: (c) =>
        c.contactList?.name ??
        (c.tag ? (
          `${t('campaigns.tag')}: ${c.tag.name}`
        ) : (
          <Placeholder>{t('campaigns.notDefined')}</Placeholder>
        )),
    },
    {
      header: t('campaigns.whatsapp'),
      cell: (c) => c.whatsapp?.name ?? <Placeholder>{t('campaigns.notDefined')}</Placeholder>,
    },
    {
      header: t('campaigns.scheduledAt'),
      align: 'center',
      cell: (c) =>
        c.scheduledAt ? (
          formatDateTime(c.scheduledAt)
        ) : (
          <Placeholder>{t('campaigns.notScheduled')}</Placeholder>
        ),
    },
    {
      header: t('campaigns.completedAt'),
      align: 'center',
      cell: (c) =>
        c.completedAt ? (
          formatDateTime(c.completedAt)
        ) : (
          <Placeholder>{t('campaigns.notConcluded')}</Placeholder>
        ),
    },
  ];

  return (
    <ResourceListPage
      resource={campaignResource}
      i18n="campaigns"
      columns={columns}
      testIds={{ list: 'campaigns', row: 'campaign-row', add: 'campaign-add' }}
      rowProps={(c) => ({ 'data-campaign-id': c.id })}
      canManage={manage}
      viewOnly={(c) => !c.editable}
      onDeleteError={showError}
      extraActions={(c) => (
        <>
          {manage && c.status === 'EM_ANDAMENTO' ? (
            <Tooltip title={t('campaigns.stop')}>
              <IconButton size="small" aria-label={t('campaigns.stop')} onClick={() => void run(c, 'cancel')}>
                <PauseCircleOutlineIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          ) : null}
          {manage && c.status === 'CANCELADA' ? (
            <Tooltip title={t('campaigns.restart')}>
              <IconButton
                size="small"
                aria-label={t('campaigns.restart')}
                onClick={() => void run(c, 'restart')}
              >
                <PlayCircleOutlineIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          ) : null}
          <Tooltip title={t('campaigns.report')}>
            <IconButton
              size="small"
              component={RouterLink}
              to={`/campaign/${c.id}/report`}
              aria-label={t('campaigns.report')}
            >
              <AssessmentOutlinedIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        </>
      )}
      deleteTitle={{ value: (c) => c.name }}
      renderDialog={(d) => <CampaignDialog open={d.open} campaign={d.record} onClose={d.onClose} />}
    />
  );
}
