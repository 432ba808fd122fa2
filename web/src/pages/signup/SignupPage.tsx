import { WELCOME_KEY } from '../financeiro/WelcomeWalkthrough.js';
import { useEffect, useMemo } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import {
  Box,
  Button,
  Link,
  List,
  ListItem,
  ListItemIcon,
  ListItemText,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import CheckCircleRoundedIcon from '@mui/icons-material/CheckCircleRounded';
import { useTranslation } from 'react-i18next';
import { DEFAULT_SIGNUP_PLAN_ID, SignupInput, type Plan, type SignupAnswer } from '@recado/contracts';
import { request } from '../../api/client.js';
import { useToast } from '../../app/useToast.js';
import { useAuth } from '../../app/auth.js';
import { homeFor } from '../../app/landing.js';
import { PublicLayout } from '../../layout/PublicLayout.js';
import { PasswordField } from '../../components/PasswordField.js';
import { fieldErrorText, i18nIssues } from '../../components/form-errors.js';
import { maskDocument, maskPhone } from './masks.js';

/** The contract's schema, with "required" told apart from "invalid" for the masked fields. */
const SignupForm = SignupInput.extend({
  // The person's own name, asked apart from the company's (optional in the API for the spec's clients).
  adminName: z.string().trim().min(2).max(50),
  document: z.string().min(1).pipe(SignupInput.shape.document),
  phone: z.string().min(1).pipe(SignupInput.shape.phone),
});
type SignupFormIn = z.input<typeof SignupForm>;
type SignupFormOut = z.output<typeof SignupForm>;

const CUSTOM_ERRORS = { 'invalid document': 'signup.invalidDocument' };
const FEATURES = ['multi', 'kanban', 'schedules', 'campaigns', 'flows'] as const;

function FeaturesPanel() {
  const { t } = useTranslation();
  return (
    <>
      <Typography variant="h5" sx={{ fontWeight: 700, lineHeight: 1.25 }}>
        {t('signup.featuresTitle')}
      </Typography>
      <Typography sx={{ opacity: 0.85, mt: 1 }}>{t('signup.subtitle')}</Typography>
      <List sx={{ mt: 3 }}>
        {FEATURES.map((f) => (
          <ListItem key={f} disableGutters sx={{ py: 0.75 }}>
            <ListItemIcon sx={{ minWidth: 34, color: 'inherit' }}>
              <CheckCircleRoundedIcon fontSize="small" sx={{ opacity: 0.9 }} />
            </ListItemIcon>
            <ListItemText primary={t(`signup.features.${f}`)} />
          </ListItem>
        ))}
      </List>
      <Box sx={{ flex: 1 }} />
      <Typography variant="body2" sx={{ opacity: 0.75 }}>
        {t('signup.trialNote')}
      </Typography>
    </>
  );
}

export default function SignupPage() {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  const { signedIn } = useAuth();
  // A plan chosen before coming here (?planId=3, e.g. from a pricing page) is the one selected.
  const [params] = useSearchParams();
  const askedPlan = Number(params.get('planId')) || DEFAULT_SIGNUP_PLAN_ID;
  const plans = useQuery({
    queryKey: ['plans', 'public'],
    queryFn: ({ signal }) => request<Plan[]>('GET', '/plans/list', { anonymous: true, signal }),
    staleTime: 5 * 60_000,
  });
  const {
    register,
    control,
    handleSubmit,
    getValues,
    setValue,
    formState: { errors, isSubmitting },
  } = useForm<SignupFormIn, unknown, SignupFormOut>({
    resolver: zodResolver(SignupForm, i18nIssues),
    defaultValues: {
      name: '',
      adminName: '',
      email: '',
      document: '',
      phone: '',
      password: '',
      planId: askedPlan,
    },
  });

  // The trial plan is the default; if this installation does not offer the one asked for, the trial plan, or
  // else the first one offered.
  useEffect(() => {
    const list = plans.data;
    if (list?.length && !list.some((p) => p.id === Number(getValues('planId'))))
      setValue('planId', list.find((p) => p.id === DEFAULT_SIGNUP_PLAN_ID)?.id ?? list[0]!.id);
  }, [plans.data, getValues, setValue]);

  const money = useMemo(
    () =>
      new Intl.NumberFormat(i18n.language === 'pt' ? 'pt-BR' : i18n.language, {
        style: 'currency',
        currency: 'BRL',
      }),
    [i18n.language],
  );

  const onSubmit = handleSubmit(async (values) => {
    try {
      const answer = await request<SignupAnswer>('POST', '/companies/cadastro', {
        anonymous: true,
        body: values,
      });
      toast.success('signup.success');
      // The welcome walkthrough greets the new admin until finished or dismissed (docs/product.md#screens).
      localStorage.setItem(WELCOME_KEY, values.email.toLowerCase());
      // The server signed the new admin in (as a login does): straight into the app.
      const user = signedIn(answer);
      navigate(homeFor(user), { replace: true });
    } catch (err) {
      toast.error(err);
    }
  });

  const err = (name: keyof SignupFormIn) => ({
    error: Boolean(errors[name]),
    helperText: fieldErrorText(t, errors[name], CUSTOM_ERRORS),
  });

  return (
    <PublicLayout maxWidth={920} aside={<FeaturesPanel />}>
      <Typography variant="h5" component="h1" sx={{ fontWeight: 700, textAlign: 'center' }}>
        {t('signup.title')}
      </Typography>
      <Typography color="text.secondary" sx={{ textAlign: 'center', mt: 0.5, mb: 3 }}>
        {t('signup.subtitle')}
      </Typography>
      <Box component="form" noValidate onSubmit={onSubmit}>
        <Stack spacing={2}>
          <TextField
            {...register('name')}
            label={t('signup.companyName')}
            autoComplete="organization"
            autoFocus
            slotProps={{ htmlInput: { maxLength: 50 } }}
            {...err('name')}
          />
          <TextField
            {...register('adminName')}
            label={t('signup.adminName')}
            autoComplete="name"
            slotProps={{ htmlInput: { maxLength: 50 } }}
            {...err('adminName')}
          />
          <TextField
            {...register('email')}
            label={t('signup.email')}
            type="email"
            autoComplete="email"
            {...err('email')}
          />
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <Controller
              name="document"
              control={control}
              render={({ field }) => (
                <TextField
                  {...field}
                  value={field.value ?? ''}
                  onChange={(e) => field.onChange(maskDocument(e.target.value))}
                  label={t('signup.document')}
                  inputMode="numeric"
                  slotProps={{ htmlInput: { maxLength: 18, inputMode: 'numeric' } }}
                  {...err('document')}
                />
              )}
            />
            <Controller
              name="phone"
              control={control}
              render={({ field }) => (
                <TextField
                  {...field}
                  value={field.value ?? ''}
                  onChange={(e) => field.onChange(maskPhone(e.target.value))}
                  label={t('signup.phone')}
                  type="tel"
                  autoComplete="tel-national"
                  placeholder="(99) 99999-9999"
                  slotProps={{ htmlInput: { maxLength: 15, inputMode: 'tel' } }}
                  {...err('phone')}
                />
              )}
            />
          </Stack>
          <PasswordField
            {...register('password')}
            label={t('signup.password')}
            autoComplete="new-password"
            size="small"
            inputProps={{ maxLength: 50 }}
            {...err('password')}
          />
          <Controller
            name="planId"
            control={control}
            render={({ field }) => (
              <TextField
                select
                name={field.name}
                inputRef={field.ref}
                onBlur={field.onBlur}
                value={plans.data?.length ? Number(field.value ?? '') : ''}
                onChange={(e) => field.onChange(Number(e.target.value))}
                label={t('signup.plan')}
                disabled={!plans.data?.length}
                data-testid="signup-plan"
                {...err('planId')}
              >
                {(plans.data ?? []).map((p) => (
                  <MenuItem key={p.id} value={p.id}>
                    <Box sx={{ display: 'flex', width: '100%', gap: 2, justifyContent: 'space-between' }}>
                      <span>
                        <strong>{p.name}</strong>
                        <Typography component="span" variant="body2" color="text.secondary" sx={{ ml: 1 }}>
                          {`${t('signup.planUsers', { count: p.users })} · ${t('signup.planConnections', { count: p.connections })}`}
                        </Typography>
                      </span>
                      <Typography component="span" variant="body2" sx={{ fontWeight: 600 }}>
                        {Number(p.value) > 0
                          ? t('signup.perMonth', { value: money.format(Number(p.value)) })
                          : t('signup.free')}
                      </Typography>
                    </Box>
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
          <Button
            type="submit"
            variant="contained"
            size="large"
            fullWidth
            disabled={isSubmitting}
            data-testid="signup-submit"
          >
            {t('signup.submit')}
          </Button>
        </Stack>
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ textAlign: 'center', mt: 3 }}>
        {t('signup.haveAccount')}{' '}
        <Link component={RouterLink} to="/login" underline="hover" sx={{ fontWeight: 600 }}>
          {t('signup.login')}
        </Link>
      </Typography>
    </PublicLayout>
  );
}
