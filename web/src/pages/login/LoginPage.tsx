import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { Alert, Box, Button, Link, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { landingFor } from '../../app/landing.js';
import { PublicLayout } from '../../layout/PublicLayout.js';
import { PasswordField } from '../../components/PasswordField.js';
import { OutlinedField } from '../../components/OutlinedField.js';
import { fieldErrorText } from '../../components/form-errors.js';
import { forgetSignedOutReason, signedOutReason } from '../../api/client.js';

// Plain rules instead of the zod schema: the login route stays light (the server validates with LoginInput).
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export default function LoginPage() {
  const { t } = useTranslation();
  const { login } = useAuth();
  const toast = useToast();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  // Signed out by the server for a reason worth telling (a login on another device): said once.
  const [reason] = useState(signedOutReason);
  useEffect(() => {
    if (reason) forgetSignedOutReason();
  }, [reason]);
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({ defaultValues: { email: '', password: '' } });

  const onSubmit = handleSubmit(async ({ email, password }) => {
    try {
      const user = await login(email, password);
      // Back to the page that asked for a login (?next=, validated), else where the work is.
      navigate(landingFor(user, params.get('next')), { replace: true });
    } catch (err) {
      toast.error(err);
    }
  });

  return (
    <PublicLayout>
      <Typography variant="h5" component="h1" sx={{ fontWeight: 700, textAlign: 'center' }}>
        {t('login.title')}
      </Typography>
      <Typography color="text.secondary" sx={{ textAlign: 'center', mt: 0.5, mb: 3 }}>
        {t('login.subtitle')}
      </Typography>
      {reason && (
        <Alert severity="warning" sx={{ mb: 2 }} data-testid="signed-out-reason">
          {t(`errors.${reason}`)}
        </Alert>
      )}
      <Box component="form" noValidate onSubmit={onSubmit}>
        <Stack spacing={2}>
          <OutlinedField
            {...register('email', {
              required: 'common.required',
              pattern: { value: EMAIL, message: 'common.invalidEmail' },
              setValueAs: (v: string) => v.trim(),
            })}
            label={t('login.email')}
            type="email"
            autoComplete="email"
            autoFocus
            error={Boolean(errors.email)}
            helperText={fieldErrorText(t, errors.email)}
          />
          <PasswordField
            {...register('password', { required: 'common.required' })}
            label={t('login.password')}
            autoComplete="current-password"
            error={Boolean(errors.password)}
            helperText={fieldErrorText(t, errors.password)}
          />
          <Box sx={{ display: 'flex', justifyContent: 'flex-end', mt: '4px !important' }}>
            <Link component={RouterLink} to="/forgetpsw" variant="body2" underline="hover">
              {t('login.forgot')}
            </Link>
          </Box>
          <Button
            type="submit"
            variant="contained"
            size="large"
            fullWidth
            disabled={isSubmitting}
            data-testid="login-submit"
          >
            {t('login.submit')}
          </Button>
        </Stack>
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ textAlign: 'center', mt: 3 }}>
        {t('login.noAccount')}{' '}
        <Link component={RouterLink} to="/signup" underline="hover" sx={{ fontWeight: 600 }}>
          {t('login.signup')}
        </Link>
      </Typography>
    </PublicLayout>
  );
}
