import { useState } from 'react';
import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import LockClockOutlinedIcon from '@mui/icons-material/LockClockOutlined';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { fetchPaymentLink, usePaymentEvents } from '../../api/invoices.js';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { CheckoutDialog } from './CheckoutDialog.js';

/**
 * docs/billing.md: once now is past dueDate + 1 day the app is blocked (the server refuses writes with
 * 402). Trial companies see the trial-expired upgrade modal, others the expired-subscription modal with
 * the days overdue. Neither can be closed; both lead to payment.
 */
export function SubscriptionBlock() {
  const { t } = useTranslation();
  const toast = useToast();
  const { user, reload } = useAuth();
  const location = useLocation();
  const [checkout, setCheckout] = useState(false);
  // Payment events anywhere in the app (docs/product.md#errors toasts); a payment lifts the block at once.
  usePaymentEvents((e) => {
    if (e.action === 'CONCLUIDA') void reload?.();
    else if (e.action === 'OVERDUE') toast.warning('billing.toasts.overdue');
    else if (e.action === 'REFUNDED') {
      toast.warning('billing.toasts.refunded');
      void reload?.();
    } else if (e.action === 'HELD') toast.warning('billing.toasts.held');
  });
  const state = user?.company.subscription;
  if (!user || user.super || !state?.blocked || location.pathname === '/financeiro') return null;
  const trial = state.reason === 'trial_expired';
  const upgrade = async () => {
    try {
      const { paymentLink } = await fetchPaymentLink();
      window.open(paymentLink, '_blank', 'noopener');
    } catch (err) {
      toast.error(err);
    }
  };
  return (
    <>
      <Dialog open={!checkout} maxWidth="xs" fullWidth data-testid="subscription-block">
        <DialogTitle sx={{ display: 'flex', alignItems: 'center', gap: 1.5, fontWeight: 700 }}>
          <Box
            sx={{
              width: 40,
              height: 40,
              borderRadius: 2,
              display: 'grid',
              placeItems: 'center',
              bgcolor: 'error.main',
              color: 'error.contrastText',
            }}
          >
            <LockClockOutlinedIcon />
          </Box>
          {t(trial ? 'billing.block.trialTitle' : 'billing.block.expiredTitle')}
        </DialogTitle>
        <DialogContent>
          <Typography sx={{ fontWeight: 600, mb: 1 }} data-testid="subscription-block-days">
            {state.daysOverdue === 0
              ? t('billing.block.dueToday')
              : t('billing.block.daysAgo', { count: state.daysOverdue })}
          </Typography>
          <Typography color="text.secondary">
            {t(trial ? 'billing.block.trialText' : 'billing.block.expiredText')}
          </Typography>
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2, flexWrap: 'wrap', gap: 1 }}>
          {trial && user.profile === 'admin' && (
            <Button onClick={() => void upgrade()} data-testid="subscription-block-link">
              {t('billing.block.paymentLink')}
            </Button>
          )}
          {user.profile === 'admin' ? (
            <Button
              variant="contained"
              onClick={() => setCheckout(true)}
              data-testid="subscription-block-pay"
            >
              {t('billing.block.pay')}
            </Button>
          ) : (
            <Typography variant="body2" color="text.secondary">
              {t('billing.block.askAdmin')}
            </Typography>
          )}
        </DialogActions>
      </Dialog>
      <CheckoutDialog open={checkout} onClose={() => setCheckout(false)} />
    </>
  );
}
