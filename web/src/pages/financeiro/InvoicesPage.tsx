import { useState } from 'react';
import { alpha, Box, Button, Chip, Typography } from '@mui/material';
import PixOutlinedIcon from '@mui/icons-material/QrCode2Outlined';
import { useTranslation } from 'react-i18next';
import type { Invoice } from '@recado/contracts';
import { invoiceResource, usePaymentEvents } from '../../api/invoices.js';
import { useAuth } from '../../app/auth.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { formatDate } from '../../i18n/format.js';
import { formatBRL } from '../settings/PlansTab.js';
import { PageHeader } from '../../components/PageHeader.js';
import { CheckoutDialog } from './CheckoutDialog.js';
import { SubscriptionSummary } from './SubscriptionSummary.js';

const STATUS_COLOR = { paid: 'success', open: 'info', expired: 'error', review: 'warning' } as const;

/**
 * Financeiro (docs/billing.md): the subscription's summary (plan, due date, trial, pay or change plan), then the
 * invoices with infinite scroll and search, overdue rows highlighted, Pay → checkout; a payment held for review
 * shows what it paid.
 */
export default function InvoicesPage() {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const [paying, setPaying] = useState<Invoice | null>(null);
  usePaymentEvents();
  const columns: ResourceColumn<Invoice>[] = [
    ...(user?.super
      ? [{ header: t('billing.columns.company'), cell: (i: Invoice) => i.companyName ?? '' }]
      : []),
    { header: t('billing.columns.detail'), cell: (i) => i.detail },
    { header: t('billing.columns.value'), align: 'right', cell: (i) => formatBRL(i.value) },
    {
      header: t('billing.columns.dueDate'),
      align: 'center',
      cell: (i) => formatDate(i.dueDate, i18n.language),
    },
    {
      header: t('billing.columns.status'),
      align: 'center',
      cell: (i) => (
        <>
          <Chip
            size="small"
            variant="outlined"
            color={STATUS_COLOR[i.status]}
            label={t(`billing.status.${i.status}`)}
            data-testid="invoice-status"
          />
          {i.status === 'review' && typeof i.heldValue === 'number' ? (
            <Typography variant="caption" color="text.secondary" component="div" data-testid="invoice-held">
              {t('billing.heldValue', { value: formatBRL(i.heldValue) })}
            </Typography>
          ) : null}
        </>
      ),
    },
  ];
  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('billing.title')} />
      <SubscriptionSummary />
      <ResourceListPage
        embedded
        intro={
          <Typography variant="h6" component="h2" sx={{ fontWeight: 700 }}>
            {t('billing.invoices')}
          </Typography>
        }
        label={t('billing.invoices')}
        maxHeight="calc(100dvh - 330px)"
        resource={invoiceResource}
        i18n="billing"
        columns={columns}
        canManage={false}
        testIds={{ list: 'invoices-list', row: 'invoice-row' }}
        rowProps={(i) => ({
          'data-status': i.status,
          sx:
            i.status === 'expired'
              ? {
                  bgcolor: (th: { palette: { error: { main: string } } }) =>
                    alpha(th.palette.error.main, 0.12),
                }
              : undefined,
        })}
        actionsWidth={130}
        extraActions={(i) =>
          i.status !== 'paid' && !user?.super ? (
            <Button
              size="small"
              variant="contained"
              startIcon={<PixOutlinedIcon />}
              onClick={() => setPaying(i)}
              data-testid="invoice-pay"
            >
              {t('billing.pay')}
            </Button>
          ) : null
        }
        deleteTitle={{ value: (i) => i.detail }}
        renderDialog={() => null}
      />
      <CheckoutDialog open={Boolean(paying)} invoice={paying} onClose={() => setPaying(null)} />
    </Box>
  );
}
