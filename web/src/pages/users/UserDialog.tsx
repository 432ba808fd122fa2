import { useEffect, useState } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { FormControlLabel, IconButton, InputAdornment, MenuItem, Switch, TextField } from '@mui/material';
import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import { useTranslation } from 'react-i18next';
import { PROFILES, UserInput, UserUpdate, can, type Profile, type UserView } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useCreateUser, useUpdateUser } from '../../api/users.js';
import { useQueues } from '../../api/queues.js';
import { useWhatsapps } from '../../api/whatsapps.js';
import { QueueMultiSelect } from '../queues/QueueSelect.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';
import { ApiError } from '../../api/client.js';

// docs/product.md#validation: name 2–50, e-mail valid, password 5–50 (required on create, may stay empty on edit).
const createSchema = UserInput.pick({
  name: true,
  email: true,
  password: true,
  profile: true,
  allTicket: true,
  showQueuelessTickets: true,
});
const editSchema = createSchema.extend({ password: UserUpdate.shape.password });
// Queues and the default connection come from pickers: the server checks they are the company's.
const pickers = {
  queueIds: z.array(z.number()),
  whatsappId: z.union([z.number(), z.literal('')]),
  /** '' = no limit (docs/routing.md#capacity). */
  maxTickets: z
    .string()
    .refine((v) => v.trim() === '' || /^\d{1,4}$/.test(v.trim()), 'users.invalidMaxTickets'),
};

interface UserForm {
  name: string;
  email: string;
  password: string;
  profile: Profile;
  allTicket: 'enabled' | 'desabled';
  showQueuelessTickets: boolean;
  queueIds: number[];
  /** '' = no default connection. */
  whatsappId: number | '';
  maxTickets: string;
}

const formValues = (user: UserView | null): UserForm => ({
  name: user?.name ?? '',
  email: user?.email ?? '',
  password: '',
  profile: (user?.profile as Profile | undefined) ?? 'user',
  allTicket: user?.allTicket === 'enabled' ? 'enabled' : 'desabled',
  showQueuelessTickets: user?.showQueuelessTickets ?? true,
  queueIds: user?.queues.map((q) => q.id) ?? [],
  whatsappId: user?.whatsappId ?? '',
  maxTickets: user?.maxTickets === null || user?.maxTickets === undefined ? '' : String(user.maxTickets),
});

/** Add or edit a user; admins also choose the user's queues and default connection. */
export function UserDialog({
  open,
  user,
  onClose,
}: {
  open: boolean;
  user: UserView | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const toast = useToast();
  const create = useCreateUser();
  const update = useUpdateUser();
  const [showPassword, setShowPassword] = useState(false);
  const editProfile = can(me, 'user-modal:editProfile') && user?.id !== me?.id;
  const editQueues = can(me, 'user-modal:editQueues');
  const queues = useQueues(open && editQueues);
  const connections = useWhatsapps(open && editQueues);
  const { control, handleSubmit, reset, setError, formState } = useForm<UserForm>({
    resolver: zodResolver(
      (user ? editSchema : createSchema).extend(pickers),
    ) as unknown as Resolver<UserForm>,
    defaultValues: formValues(user),
  });

  useEffect(() => {
    if (open) {
      reset(formValues(user));
      setShowPassword(false);
    }
  }, [open, user, reset]);

  const submit = handleSubmit(async (values) => {
    const { profile, password, queueIds, whatsappId, maxTickets, ...rest } = values;
    // Queues deleted since the user was read are dropped rather than refused by the server.
    const known = new Set(queues.data?.map((q) => q.id));
    const input = {
      ...rest,
      ...(password ? { password } : {}),
      ...(editProfile ? { profile } : {}),
      ...(editQueues
        ? {
            queueIds: queues.data ? queueIds.filter((id) => known.has(id)) : queueIds,
            whatsappId:
              whatsappId === '' || (connections.data && !connections.data.some((w) => w.id === whatsappId))
                ? null
                : whatsappId,
            maxTickets: maxTickets.trim() === '' ? null : Number(maxTickets),
          }
        : {}),
    };
    try {
      if (user) await update.mutateAsync({ id: user.id, input });
      else await create.mutateAsync(input);
      toast.success('users.saved');
      onClose();
    } catch (err) {
      // The field that is wrong says so, as the contact form does.
      if (err instanceof ApiError && err.code === 'ERR_EMAIL_ALREADY_EXISTS')
        setError('email', { type: 'custom', message: `errors.${err.code}` }, { shouldFocus: true });
      toast.error(err);
    }
  });

  return (
    <FormDialog
      open={open}
      title={t(user ? 'users.editTitle' : 'users.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
    >
      <Controller
        name="name"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            label={t('users.name')}
            autoFocus
            required
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
          />
        )}
      />
      <Controller
        name="email"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            type="email"
            label={t('users.email')}
            required
            autoComplete="off"
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
          />
        )}
      />
      <Controller
        name="password"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            type={showPassword ? 'text' : 'password'}
            label={t('users.password')}
            required={!user}
            autoComplete="new-password"
            error={Boolean(fieldState.error)}
            helperText={
              fieldErrorText(t, fieldState.error, { value: field.value }) ??
              (user ? t('users.passwordKeep') : undefined)
            }
            slotProps={{
              input: {
                endAdornment: (
                  <InputAdornment position="end">
                    <IconButton
                      size="small"
                      edge="end"
                      aria-label={t(showPassword ? 'users.hidePassword' : 'users.showPassword')}
                      onClick={() => setShowPassword((s) => !s)}
                    >
                      {showPassword ? (
                        <VisibilityOffIcon fontSize="small" />
                      ) : (
                        <VisibilityIcon fontSize="small" />
                      )}
                    </IconButton>
                  </InputAdornment>
                ),
              },
            }}
          />
        )}
      />
      {editProfile ? (
        <Controller
          name="profile"
          control={control}
          render={({ field }) => (
            <TextField {...field} select label={t('users.profile')}>
              {PROFILES.map((p) => (
                <MenuItem key={p} value={p}>
                  {t(`users.profiles.${p}`)}
                </MenuItem>
              ))}
            </TextField>
          )}
        />
      ) : null}
      {editQueues ? (
        <Controller
          name="queueIds"
          control={control}
          render={({ field }) => (
            <QueueMultiSelect
              queues={queues.data ?? []}
              value={field.value}
              onChange={field.onChange}
              label={t('users.queues')}
            />
          )}
        />
      ) : null}
      {editQueues ? (
        <Controller
          name="whatsappId"
          control={control}
          render={({ field }) => {
            const list = connections.data ?? [];
            // A connection deleted since the user was read shows as none.
            const value = list.some((w) => w.id === field.value) ? field.value : '';
            return (
              <TextField
                {...field}
                value={value}
                select
                label={t('users.whatsapp')}
                helperText={t('users.whatsappHelp')}
                slotProps={{ htmlInput: { 'data-field': 'whatsappId' } }}
                onChange={(e) => field.onChange(e.target.value === '' ? '' : Number(e.target.value))}
              >
                <MenuItem value="">
                  <em>{t('users.noWhatsapp')}</em>
                </MenuItem>
                {list.map((w) => (
                  <MenuItem key={w.id} value={w.id}>
                    {w.name}
                  </MenuItem>
                ))}
              </TextField>
            );
          }}
        />
      ) : null}
      {editQueues ? (
        <Controller
          name="maxTickets"
          control={control}
          render={({ field, fieldState }) => (
            <TextField
              {...field}
              label={t('users.maxTickets')}
              error={Boolean(fieldState.error)}
              helperText={fieldState.error ? t('users.invalidMaxTickets') : t('users.maxTicketsHelp')}
              slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 4, 'data-field': 'maxTickets' } }}
            />
          )}
        />
      ) : null}
      <Controller
        name="allTicket"
        control={control}
        render={({ field }) => (
          <TextField {...field} select label={t('users.allTicket')} helperText={t('users.allTicketHelp')}>
            <MenuItem value="enabled">{t('common.enabled')}</MenuItem>
            <MenuItem value="desabled">{t('common.disabled')}</MenuItem>
          </TextField>
        )}
      />
      <Controller
        name="showQueuelessTickets"
        control={control}
        render={({ field }) => (
          <FormControlLabel
            control={
              <Switch
                checked={field.value}
                onChange={(_e, checked) => field.onChange(checked)}
                name={field.name}
              />
            }
            label={t('users.showQueuelessTickets')}
          />
        )}
      />
    </FormDialog>
  );
}

export default UserDialog;
