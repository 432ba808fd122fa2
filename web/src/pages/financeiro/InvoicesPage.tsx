import { useState } from 'react';
import { alpha, Button, Chip } from '@mui/material';
import PixOutlinedIcon from '@mui/icons-material/QrCode2Outlined';
import { useTranslation } from 'react-i18next';
import type { Invoice } from '@recado/contracts';
import { invoiceResource, usePaymentEvents } from '../../api/invoices.js';
import { useAuth } from '../../app/auth.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { formatDate } from '../../i18n/format.js';
import { formatBRL } from '../settings/PlansTab.js';
import { CheckoutDialog } from './CheckoutDialog.js';

const STATUS_COLOR = { paid: 'success', open: 'info', expired: 'error' } as const;

/** Invoices (docs/billing.md): infinite scroll and search, overdue rows highlighted, Pay → checkout. */
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
        <Chip
          size="small"
          variant="outlined"
          color={STATUS_COLOR[i.status]}
          label={t(`billing.status.${i.status}`)}
          data-testid="invoice-status"
        />
      ),
    },
  ];
  return (
    <>
      <ResourceListPage
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
    </>
  );
}
