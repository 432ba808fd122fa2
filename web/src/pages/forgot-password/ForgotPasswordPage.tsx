import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Link as RouterLink, useNavigate } from 'react-router';
import { z } from 'zod';
import { useSnackbar } from 'notistack';
import { Alert, Box, Button, Link, Stack, Step, StepLabel, Stepper, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { ForgotPasswordParams, StrongPassword } from '@recado/contracts';
import { ApiError, request } from '../../api/client.js';
import { useToast } from '../../app/useToast.js';
import { PublicLayout } from '../../layout/PublicLayout.js';
import { PasswordField } from '../../components/PasswordField.js';
import { OutlinedField } from '../../components/OutlinedField.js';
import { fieldErrorText, i18nIssues } from '../../components/form-errors.js';

const ResetForm = z
  .object({
    token: z
      .string()
      .trim()
      .regex(/^\d{6}$/, 'code'),
    password: StrongPassword,
    confirm: z.string().min(1),
  })
  .refine((v) => v.password === v.confirm, { message: 'mismatch', path: ['confirm'] });

const PASSWORD_ERRORS = {
  'common.tooShort': 'forgot.passwordRule',
  'common.tooLong': 'forgot.passwordRule',
  uppercase: 'forgot.passwordRule',
  lowercase: 'forgot.passwordRule',
  digit: 'forgot.passwordRule',
};

function EmailStep({ onSent }: { onSent: (email: string) => void }) {
  const { t } = useTranslation();
  const { enqueueSnackbar } = useSnackbar();
  const toast = useToast();
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(ForgotPasswordParams, i18nIssues), defaultValues: { email: '' } });
  const onSubmit = handleSubmit(async ({ email }) => {
    try {
      await request('POST', `/forgetpassword/${encodeURIComponent(email)}`, { anonymous: true });
      onSent(email);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404)
        enqueueSnackbar(t('forgot.emailNotFound'), { variant: 'error', autoHideDuration: 2000 });
      else toast.error(err);
    }
  });
  return (
    <Box component="form" noValidate onSubmit={onSubmit}>
      <Stack spacing={2}>
        <Typography color="text.secondary">{t('forgot.step1Text')}</Typography>
        <OutlinedField
          {...register('email')}
          label={t('forgot.email')}
          type="email"
          autoComplete="email"
          autoFocus
          error={Boolean(errors.email)}
          helperText={fieldErrorText(t, errors.email)}
        />
        <Button
          type="submit"
          variant="contained"
          size="large"
          fullWidth
          disabled={isSubmitting}
          data-testid="forgot-send"
        >
          {t('forgot.sendCode')}
        </Button>
      </Stack>
    </Box>
  );
}

function ResetStep({ email, onChangeEmail }: { email: string; onChangeEmail: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  const [resending, setResending] = useState(false);
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({
    resolver: zodResolver(ResetForm, i18nIssues),
    defaultValues: { token: '', password: '', confirm: '' },
  });
  const onSubmit = handleSubmit(async ({ token, password }) => {
    try {
      await request('POST', '/resetpasswords', { anonymous: true, body: { email, token, password } });
      toast.success('forgot.success');
      navigate('/login', { replace: true });
    } catch (err) {
      toast.error(err);
    }
  });
  const resend = async () => {
    setResending(true);
    try {
      await request('POST', `/forgetpassword/${encodeURIComponent(email)}`, { anonymous: true });
      toast.info('forgot.codeResent');
    } catch (err) {
      toast.error(err);
    } finally {
      setResending(false);
    }
  };
  return (
    <Box component="form" noValidate onSubmit={onSubmit}>
      <Stack spacing={2}>
        <Alert severity="success" variant="outlined" sx={{ '& .MuiAlert-message': { minWidth: 0 } }}>
          {t('forgot.codeSent', { email })}
        </Alert>
        <OutlinedField
          {...register('token')}
          label={t('forgot.code')}
          autoComplete="one-time-code"
          autoFocus
          placeholder="000000"
          inputProps={{
            inputMode: 'numeric',
            maxLength: 6,
            style: { letterSpacing: '0.5em', fontWeight: 600 },
          }}
          error={Boolean(errors.token)}
          helperText={fieldErrorText(t, errors.token, { code: 'forgot.invalidCode' })}
        />
        <PasswordField
          {...register('password')}
          label={t('forgot.newPassword')}
          autoComplete="new-password"
          error={Boolean(errors.password)}
          helperText={fieldErrorText(t, errors.password, PASSWORD_ERRORS) ?? t('forgot.passwordRule')}
        />
        <PasswordField
          {...register('confirm')}
          label={t('forgot.confirm')}
          autoComplete="new-password"
          error={Boolean(errors.confirm)}
          helperText={fieldErrorText(t, errors.confirm, { mismatch: 'forgot.mismatch' })}
        />
        <Button
          type="submit"
          variant="contained"
          size="large"
          fullWidth
          disabled={isSubmitting}
          data-testid="forgot-reset"
        >
          {t('forgot.submit')}
        </Button>
        <Stack direction="row" sx={{ justifyContent: 'space-between' }}>
          <Button size="small" onClick={onChangeEmail} sx={{ textTransform: 'none' }}>
            {t('forgot.changeEmail')}
          </Button>
          <Button size="small" onClick={resend} disabled={resending} sx={{ textTransform: 'none' }}>
            {t('forgot.resend')}
          </Button>
        </Stack>
      </Stack>
    </Box>
  );
}

export default function ForgotPasswordPage() {
  const { t } = useTranslation();
  const [email, setEmail] = useState<string | null>(null);
  return (
    <PublicLayout>
      <Typography variant="h5" component="h1" sx={{ fontWeight: 700, textAlign: 'center' }}>
        {t('forgot.title')}
      </Typography>
      <Stepper activeStep={email ? 1 : 0} alternativeLabel sx={{ my: 3 }}>
        <Step>
          <StepLabel>{t('forgot.step1')}</StepLabel>
        </Step>
        <Step>
          <StepLabel>{t('forgot.step2')}</StepLabel>
        </Step>
      </Stepper>
      {email ? (
        <ResetStep key={email} email={email} onChangeEmail={() => setEmail(null)} />
      ) : (
        <EmailStep onSent={setEmail} />
      )}
      <Stack spacing={0.5} sx={{ mt: 3, textAlign: 'center' }}>
        <Link component={RouterLink} to="/login" variant="body2" underline="hover">
          {t('forgot.backToLogin')}
        </Link>
        <Typography variant="body2" color="text.secondary">
          {t('forgot.noAccount')}{' '}
          <Link component={RouterLink} to="/signup" underline="hover" sx={{ fontWeight: 600 }}>
            {t('forgot.signup')}
          </Link>
        </Typography>
      </Stack>
    </PublicLayout>
  );
}
