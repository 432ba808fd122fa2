import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import WorkspacePremiumOutlinedIcon from '@mui/icons-material/WorkspacePremiumOutlined';
import { useTranslation } from 'react-i18next';
import { useState } from 'react';
import { daysUntil, useAuth } from '../app/auth.js';
import { CheckoutDialog } from '../pages/financeiro/CheckoutDialog.js';

/** Shown from the premium button during the trial; choosing a plan opens the checkout. */
export function PremiumDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  // The server counts on the company's calendar (its time zone), not the browser's.
  const days = user?.company.subscription?.daysLeft ?? daysUntil(user?.company.dueDate);
  const [checkout, setCheckout] = useState(false);
  return (
    <>
      <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth>
        <DialogTitle sx={{ display: 'flex', alignItems: 'center', gap: 1.5, fontWeight: 700 }}>
          <Box
            sx={{
              width: 40,
              height: 40,
              borderRadius: 2,
              display: 'grid',
              placeItems: 'center',
              bgcolor: 'warning.main',
              color: 'warning.contrastText',
            }}
          >
            <WorkspacePremiumOutlinedIcon />
          </Box>
          {t('layout.premiumTitle')}
        </DialogTitle>
        <DialogContent>
          {days !== null && days >= 0 && (
            <Typography sx={{ fontWeight: 600, mb: 1 }}>
              {t('layout.trialDaysLeft', { count: days })}
            </Typography>
          )}
          <Typography color="text.secondary">{t('layout.premiumText')}</Typography>
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button onClick={onClose}>{t('common.close')}</Button>
          {user?.profile === 'admin' && (
            <Button
              variant="contained"
              data-testid="premium-choose-plan"
              onClick={() => {
                setCheckout(true);
                onClose();
              }}
            >
              {t('billing.choosePlan')}
            </Button>
          )}
        </DialogActions>
      </Dialog>
      <CheckoutDialog open={checkout} onClose={() => setCheckout(false)} />
    </>
  );
}
