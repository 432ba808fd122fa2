import { useState } from 'react';
import { Box, Button, Chip, Paper, Typography } from '@mui/material';
import PixOutlinedIcon from '@mui/icons-material/QrCode2Outlined';
import SwapHorizIcon from '@mui/icons-material/SwapHoriz';
import { useTranslation } from 'react-i18next';
import { usePublicPlans } from '../../api/invoices.js';
import { useAuth } from '../../app/auth.js';
import { formatDate } from '../../i18n/format.js';
import { formatBRL } from '../settings/PlansTab.js';
import { CheckoutDialog } from './CheckoutDialog.js';

/**
 * The company's subscription at the top of Financeiro (docs/billing.md), invoices or not: its plan and price,
 * the due date with the days left or overdue (on the company's calendar, from the server), the trial's days,
 * and for admins the way to pay (the current plan preselected) or to change plan.
 */
export function SubscriptionSummary() {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const plans = usePublicPlans(Boolean(user));
  const [checkout, setCheckout] = useState<'pay' | 'change' | null>(null);
  if (!user || user.super) return null;
  const company = user.company;
  const state = company.subscription;
  const plan = (plans.data ?? []).find((p) => p.id === company.planId);
  const daysLeft = state?.daysLeft ?? null;
  const tone = state?.blocked ? 'error' : daysLeft !== null && daysLeft <= 3 ? 'warning' : 'success';
  const dueText =
    daysLeft === null
      ? null
      : daysLeft > 0
        ? t('billing.summary.dueIn', { count: daysLeft })
        : daysLeft === 0
          ? t('billing.block.dueToday')
          : t('billing.block.daysAgo', { count: -daysLeft });
  const admin = user.profile === 'admin';
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid="billing-summary">
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'flex-start' }}>
        <Box sx={{ flex: '1 1 180px', minWidth: 0 }}>
          <Typography variant="caption" color="text.secondary">
            {t('billing.summary.plan')}
          </Typography>
          <Typography sx={{ fontWeight: 700 }} data-testid="billing-summary-plan">
            {company.plan.name}
            {plan && plan.value > 0 ? ` · ${formatBRL(plan.value)}${t('billing.perMonth')}` : ''}
          </Typography>
        </Box>
        <Box sx={{ flex: '1 1 180px', minWidth: 0 }}>
          <Typography variant="caption" color="text.secondary">
            {t('billing.summary.dueDate')}
          </Typography>
          <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1 }}>
            <Typography sx={{ fontWeight: 700 }} data-testid="billing-summary-due">
              {company.dueDate ? formatDate(company.dueDate, i18n.language) : t('billing.summary.noDueDate')}
            </Typography>
            {company.trialPeriod && daysLeft !== null && daysLeft >= 0 ? (
              <Chip
                size="small"
                color="warning"
                variant="outlined"
                label={t('layout.trialDaysLeft', { count: daysLeft })}
                data-testid="billing-summary-trial"
              />
            ) : dueText ? (
              <Chip
                size="small"
                color={tone}
                variant="outlined"
                label={dueText}
                data-testid="billing-summary-days"
              />
            ) : null}
          </Box>
        </Box>
        {admin && (
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1, alignSelf: 'center' }}>
            <Button
              variant="outlined"
              startIcon={<SwapHorizIcon />}
              onClick={() => setCheckout('change')}
              data-testid="billing-summary-change"
            >
              {t('billing.summary.changePlan')}
            </Button>
            <Button
              variant="contained"
              startIcon={<PixOutlinedIcon />}
              onClick={() => setCheckout('pay')}
              data-testid="billing-summary-pay"
            >
              {t(company.trialPeriod ? 'billing.choosePlan' : 'billing.summary.pay')}
            </Button>
          </Box>
        )}
      </Box>
      {!admin && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          {t('billing.block.askAdmin')}
        </Typography>
      )}
      <CheckoutDialog
        open={checkout !== null}
        initialPlanId={checkout === 'pay' ? company.planId : undefined}
        onClose={() => setCheckout(null)}
      />
    </Paper>
  );
}
