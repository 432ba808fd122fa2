import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Email, UserInput, UserPassword } from '@recado/contracts';
import { api } from '../api/client.js';
import { useAuth } from '../app/auth.js';
import { useToast } from '../app/useToast.js';
import { PasswordField } from '../components/PasswordField.js';
import { fieldErrorText, i18nIssues } from '../components/form-errors.js';

const ProfileForm = z.object({
  name: UserInput.shape.name,
  email: Email,
  password: UserPassword.or(z.literal('')),
});

/** The signed-in user edits their own name, e-mail and password. */
export function ProfileDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="xs">
      {/* The body mounts on each opening (the dialog unmounts it once closed), so it starts from the user. */}
      <ProfileFormBody onClose={onClose} />
    </Dialog>
  );
}

function ProfileFormBody({ onClose: close }: { onClose: () => void }) {
  const { t } = useTranslation();
  const { user, reload } = useAuth();
  const toast = useToast();
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({
    resolver: zodResolver(ProfileForm, i18nIssues),
    defaultValues: { name: user?.name ?? '', email: user?.email ?? '', password: '' },
  });
  const onSubmit = handleSubmit(async ({ name, email, password }) => {
    if (!user) return;
    try {
      await api.put(`/users/${user.id}`, {
        // PUT changes only what is sent: name, e-mail and (when typed) the password.
        name,
        email,
        ...(password ? { password } : {}),
      });
      toast.success('profile.saved');
      await reload();
      close();
    } catch (err) {
      toast.error(err);
    }
  });
  return (
    <form noValidate onSubmit={onSubmit}>
      <DialogTitle sx={{ fontWeight: 700 }}>{t('profile.title')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <TextField
            {...register('name')}
            label={t('profile.name')}
            autoComplete="name"
            slotProps={{ htmlInput: { maxLength: 50 } }}
            error={Boolean(errors.name)}
            helperText={fieldErrorText(t, errors.name)}
          />
          <TextField
            {...register('email')}
            label={t('profile.email')}
            type="email"
            autoComplete="email"
            error={Boolean(errors.email)}
            helperText={fieldErrorText(t, errors.email)}
          />
          <PasswordField
            {...register('password')}
            label={t('profile.password')}
            autoComplete="new-password"
            size="small"
            inputProps={{ maxLength: 50 }}
            error={Boolean(errors.password)}
            helperText={fieldErrorText(t, errors.password) ?? t('profile.passwordHelp')}
          />
        </Stack>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={close} color="inherit">
          {t('common.cancel')}
        </Button>
        <Button type="submit" variant="contained" disabled={isSubmitting} data-testid="profile-save">
          {t('common.save')}
        </Button>
      </DialogActions>
    </form>
  );
}
