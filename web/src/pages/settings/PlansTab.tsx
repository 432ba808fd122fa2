import { Box, Chip, Typography } from '@mui/material';
import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import { useTranslation } from 'react-i18next';
import { PLAN_FLAGS, type Plan } from '@recado/contracts';
import { planResource } from '../../api/plans.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { PlanDialog } from './PlanDialog.js';

/** Monthly prices in BRL, Brazilian format (docs/product.md#constants). */
export const formatBRL = (value: number) =>
  new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(value);

/** Super user: plans with their limits, price and feature flags. */
export function PlansTab() {
  const { t } = useTranslation();
  const columns: ResourceColumn<Plan>[] = [
    {
      header: t('plans.name'),
      cell: (p) => (
        <Typography variant="body2" sx={{ fontWeight: 500 }}>
          {p.name}
        </Typography>
      ),
    },
    { header: t('plans.users'), align: 'right', cell: (p) => p.users },
    { header: t('plans.connections'), align: 'right', cell: (p) => p.connections },
    { header: t('plans.queues'), align: 'right', cell: (p) => p.queues },
    {
      header: t('plans.value'),
      align: 'right',
      sx: { whiteSpace: 'nowrap' },
      cell: (p) => formatBRL(p.value),
    },
    {
      header: t('plans.featuresShort'),
      cell: (p) => (
        // A floor on the width: on a phone the chips wrap in a few lines, not one a line.
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, minWidth: 300 }}>
          {PLAN_FLAGS.map((f) => (
            <Chip
              key={f}
              size="small"
              data-flag={f}
              data-on={p[f]}
              variant={p[f] ? 'filled' : 'outlined'}
              color={p[f] ? 'success' : 'default'}
              icon={p[f] ? <CheckIcon /> : <CloseIcon />}
              label={t(`plans.flags.${f}`)}
              aria-label={`${t(`plans.flags.${f}`)}: ${t(p[f] ? 'common.yes' : 'common.no')}`}
              sx={p[f] ? undefined : { color: 'text.disabled', borderStyle: 'dashed' }}
            />
          ))}
        </Box>
      ),
    },
  ];
  return (
    <ResourceListPage<Plan>
      embedded
      resource={planResource}
      i18n="plans"
      label={t('settings.tabs.plans')}
      columns={columns}
      search={false}
      maxHeight="calc(100dvh - 320px)"
      loadError={t('plans.loadError')}
      testIds={{ list: 'plans-list', row: 'plan-row', add: 'plan-add' }}
      deleteTitle={{ value: (p) => p.name }}
      renderDialog={(d) => <PlanDialog open={d.open} plan={d.record} onClose={d.onClose} />}
    />
  );
}
