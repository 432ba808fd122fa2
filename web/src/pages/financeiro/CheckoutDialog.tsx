import { useEffect, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  MenuItem,
  Radio,
  RadioGroup,
  Step,
  StepLabel,
  Stepper,
  TextField,
  Typography,
} from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import QRCode from 'qrcode';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { Invoice, PaymentEvent, PixCharge } from '@recado/contracts';
import { CUSTOM_PLAN, CUSTOM_PLAN_MAX, customPlanPrice } from '@recado/contracts';
import { useCheckout, usePaymentEvents, usePublicPlans } from '../../api/invoices.js';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { formatDate } from '../../i18n/format.js';
import { formatBRL } from '../settings/PlansTab.js';

const COUNTRIES = ['BR', 'US'] as const;
/** docs/billing.md: after the payment event, back to / after 4 seconds. */
export const REDIRECT_MS = 4000;

interface DataForm {
  firstName: string;
  lastName: string;
  document: string;
  address2: string;
  city: string;
  state: string;
  zipcode: string;
  country: string;
}
const REQUIRED: (keyof DataForm)[] = ['firstName', 'address2', 'city', 'zipcode', 'country'];

/**
 * Checkout (docs/billing.md): data, plan choice or customise, review; the pay action posts
 * /subscription and shows the Pix QR code and copy-paste code, then waits live for the payment event.
 */
export function CheckoutDialog({
  open,
  invoice,
  onClose,
  closable = true,
  initialPlanId,
}: {
  open: boolean;
  /** The plan chosen at first (the company's own, to renew it); otherwise the R$ 97 one. */
  initialPlanId?: number;
  /** Pay this invoice; without it, the current period at the chosen plan. */
  invoice?: Invoice | null;
  onClose: () => void;
  closable?: boolean;
}) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  const { user, reload } = useAuth();
  const checkout = useCheckout();
  const plans = usePublicPlans(open);
  const [step, setStep] = useState(0);
  const [touched, setTouched] = useState(false);
  const [form, setForm] = useState<DataForm>({
    firstName: '',
    lastName: '',
    document: '',
    address2: '',
    city: '',
    state: '',
    zipcode: '',
    country: 'BR',
  });
  const paid = (plans.data ?? []).filter((p) => p.value > 0);
  const [planChoice, setPlanChoice] = useState<string>('');
  const [custom, setCustom] = useState({ users: CUSTOM_PLAN.users, connections: CUSTOM_PLAN.connections });
  const [pix, setPix] = useState<PixCharge | null>(null);
  const [qrImage, setQrImage] = useState('');
  const [done, setDone] = useState<string | null>(null);

  useEffect(() => {
    // Chosen when the dialog opens, so the plan it was opened for (initialPlanId) is the one preselected.
    if (open && !planChoice && paid.length) {
      const premium =
        paid.find((p) => p.id === initialPlanId) ??
        paid.find((p) => Math.abs(p.value - 97) < 0.001) ??
        paid[0]!;
      setPlanChoice(String(premium.id));
    }
  }, [open, paid, planChoice, initialPlanId]);

  useEffect(() => {
    if (!open) {
      setStep(0);
      setPix(null);
      setQrImage('');
      setDone(null);
      setTouched(false);
      setPlanChoice('');
    }
  }, [open]);

  useEffect(() => {
    if (!pix) return;
    void QRCode.toDataURL(pix.qrcode.qrcode, { margin: 1, width: 240 }).then(setQrImage, () =>
      setQrImage(`data:image/png;base64,${pix.qrcode.encodedImage}`),
    );
  }, [pix]);

  usePaymentEvents((e: PaymentEvent) => {
    if (!open || !pix || e.action !== 'CONCLUIDA' || e.invoiceId !== pix.invoiceId) return;
    const due = formatDate(e.company?.dueDate ?? null, i18n.language);
    setDone(due);
    toast.success('billing.renewed', { date: due });
    void reload?.();
    setTimeout(() => {
      onClose();
      navigate('/');
    }, REDIRECT_MS);
  });

  const steps = invoice ? ['data', 'review'] : ['data', 'plan', 'review'];
  const stepName = pix ? 'pix' : steps[step];
  const missing = REQUIRED.filter((k) => !form[k].trim());
  const chosen = paid.find((p) => String(p.id) === planChoice);
  const price = invoice
    ? invoice.value
    : chosen
      ? chosen.value
      : customPlanPrice(custom.users, custom.connections);

  const next = () => {
    if (stepName === 'data' && missing.length) return setTouched(true);
    setStep((s) => s + 1);
  };
  const pay = () =>
    checkout.mutate(
      {
        ...form,
        useAddressForPaymentDetails: true,
        invoiceId: invoice?.id,
        plan: JSON.stringify(
          chosen
            ? { planId: chosen.id, price: chosen.value, users: chosen.users, connections: chosen.connections }
            : { ...custom, price },
        ),
        price,
        users: chosen?.users ?? custom.users,
        connections: chosen?.connections ?? custom.connections,
      },
      { onSuccess: setPix, onError: (err) => toast.error(err) },
    );

  const field = (name: keyof DataForm, extra: Record<string, unknown> = {}) => (
    <TextField
      size="small"
      fullWidth
      label={t(`billing.fields.${name}`)}
      value={form[name]}
      required={REQUIRED.includes(name)}
      error={touched && REQUIRED.includes(name) && !form[name].trim()}
      helperText={touched && REQUIRED.includes(name) && !form[name].trim() ? t('billing.required') : ' '}
      onChange={(e) => setForm((f) => ({ ...f, [name]: e.target.value }))}
      slotProps={{ htmlInput: { 'data-testid': `checkout-${name}` } }}
      {...extra}
    />
  );

  return (
    <Dialog
      open={open}
      onClose={closable && !checkout.isPending ? onClose : undefined}
      maxWidth="sm"
      fullWidth
      data-testid="checkout-dialog"
    >
      <DialogTitle sx={{ fontWeight: 700 }}>{t('billing.checkoutTitle')}</DialogTitle>
      <DialogContent dividers>
        {!pix && (
          <Stepper activeStep={step} alternativeLabel sx={{ mb: 3 }}>
            {steps.map((s) => (
              <Step key={s}>
                <StepLabel>{t(`billing.steps.${s}`)}</StepLabel>
              </Step>
            ))}
          </Stepper>
        )}
        {stepName === 'data' && (
          <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, columnGap: 2 }}>
            {field('firstName')}
            {field('lastName')}
            {field('document')}
            {field('zipcode')}
            <Box sx={{ gridColumn: '1 / -1' }}>{field('address2')}</Box>
            {field('city')}
            {field('state')}
            {field('country', {
              select: true,
              children: COUNTRIES.map((c) => (
                <MenuItem key={c} value={c}>
                  {t(`billing.countries.${c}`)}
                </MenuItem>
              )),
            })}
          </Box>
        )}
        {stepName === 'plan' && (
          <Box>
            {plans.isLoading && <CircularProgress size={24} />}
            <RadioGroup value={planChoice} onChange={(e) => setPlanChoice(e.target.value)}>
              {paid.map((p) => (
                <FormControlLabel
                  key={p.id}
                  value={String(p.id)}
                  control={<Radio />}
                  data-testid="checkout-plan"
                  label={
                    <Typography>
                      <b>{p.name}</b> — {formatBRL(p.value)}
                      {t('billing.perMonth')} ·{' '}
                      {t('billing.planLimits', { users: p.users, connections: p.connections })}
                    </Typography>
                  }
                />
              ))}
              <FormControlLabel value="custom" control={<Radio />} label={<b>{t('billing.custom')}</b>} />
            </RadioGroup>
            {planChoice === 'custom' && (
              <Box sx={{ display: 'flex', gap: 2, mt: 1, flexWrap: 'wrap' }}>
                {(['users', 'connections'] as const).map((k) => (
                  <TextField
                    key={k}
                    size="small"
                    type="number"
                    label={t(`billing.fields.${k}`)}
                    value={custom[k]}
                    onChange={(e) =>
                      setCustom((c) => ({
                        ...c,
                        [k]: Math.min(CUSTOM_PLAN_MAX, Math.max(1, Number(e.target.value) || 1)),
                      }))
                    }
                    sx={{ width: 140 }}
                  />
                ))}
                <Alert severity="info" sx={{ flex: '1 1 100%' }}>
                  {t('billing.customPrice', {
                    price: formatBRL(customPlanPrice(custom.users, custom.connections)),
                  })}
                </Alert>
              </Box>
            )}
          </Box>
        )}
        {stepName === 'review' && (
          <Box data-testid="checkout-review" sx={{ display: 'grid', gap: 1 }}>
            <Typography>
              <b>{t('billing.fields.firstName')}:</b> {`${form.firstName} ${form.lastName}`.trim()}
            </Typography>
            <Typography>
              <b>{t('billing.fields.address2')}:</b> {form.address2}, {form.city} {form.state} {form.zipcode}{' '}
              · {t(`billing.countries.${form.country}`)}
            </Typography>
            <Typography>
              <b>{t('billing.plan')}:</b> {invoice ? invoice.detail : (chosen?.name ?? t('billing.custom'))}
            </Typography>
            <Typography variant="h6" sx={{ fontWeight: 700 }}>
              {t('billing.total')}: {formatBRL(price)}
            </Typography>
          </Box>
        )}
        {stepName === 'pix' && pix && (
          <Box
            sx={{ display: 'grid', justifyItems: 'center', gap: 2, textAlign: 'center' }}
            data-testid="checkout-pix"
          >
            {done ? (
              <Alert severity="success" data-testid="checkout-paid">
                {t('billing.renewed', { date: done })}
              </Alert>
            ) : (
              <Typography>{t('billing.pixInstructions')}</Typography>
            )}
            {qrImage && (
              <Box
                component="img"
                src={qrImage}
                alt={t('billing.qrAlt')}
                data-testid="checkout-qr"
                sx={{ width: 240, height: 240, bgcolor: '#fff', p: 1, borderRadius: 1 }}
              />
            )}
            <Typography variant="h6" sx={{ fontWeight: 700 }}>
              {formatBRL(Number(pix.valor.original))}
            </Typography>
            <TextField
              fullWidth
              size="small"
              label={t('billing.copyPaste')}
              value={pix.qrcode.qrcode}
              slotProps={{ htmlInput: { readOnly: true, 'data-testid': 'checkout-code' } }}
            />
            <Button
              startIcon={<ContentCopyIcon />}
              onClick={() =>
                void navigator.clipboard
                  ?.writeText(pix.qrcode.qrcode)
                  .then(() => toast.success('billing.copied'))
              }
            >
              {t('billing.copy')}
            </Button>
            {!done && (
              <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, color: 'text.secondary' }}>
                <CircularProgress size={16} /> {t('billing.waiting')}
              </Box>
            )}
          </Box>
        )}
        {user?.company.trialPeriod && stepName === 'data' && (
          <Typography variant="body2" color="text.secondary">
            {t('billing.trialNote')}
          </Typography>
        )}
      </DialogContent>
      <DialogActions sx={{ px: 3, py: 2 }}>
        {closable && (
          <Button onClick={onClose} disabled={checkout.isPending}>
            {t('common.close')}
          </Button>
        )}
        {!pix && step > 0 && <Button onClick={() => setStep((s) => s - 1)}>{t('billing.back')}</Button>}
        {!pix && stepName !== 'review' && (
          <Button variant="contained" onClick={next} data-testid="checkout-next">
            {t('billing.next')}
          </Button>
        )}
        {!pix && stepName === 'review' && (
          <Button variant="contained" onClick={pay} disabled={checkout.isPending} data-testid="checkout-pay">
            {checkout.isPending ? <CircularProgress size={20} /> : t('billing.pay')}
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}
