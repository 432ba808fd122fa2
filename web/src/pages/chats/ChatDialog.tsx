import { useEffect, useState } from 'react';
import {
  Alert,
  Autocomplete,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  TextField,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { CHAT_TITLE_MAX, type Chat } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useUserOptions, type UserOption } from '../../api/tickets.js';
import { chatResource } from '../../api/chats.js';

/**
 * The chat modal (docs/internal-chat.md): a title and the users to talk to. An empty title or no user shows an
 * alert and nothing is sent; the creator is always a member (the server adds the owner).
 */
export function ChatDialog({
  open,
  chat,
  onClose,
  onSaved,
}: {
  open: boolean;
  chat?: Chat | null;
  onClose(): void;
  onSaved?(chat: Chat): void;
}) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const options = useUserOptions(open);
  const save = chatResource.useSave();
  const [title, setTitle] = useState('');
  const [members, setMembers] = useState<UserOption[]>([]);
  const [alert, setAlert] = useState<'title' | 'users' | null>(null);

  useEffect(() => {
    if (!open) return;
    setTitle(chat?.title ?? '');
    setMembers(
      (chat?.users ?? [])
        .filter((u) => u.userId !== user?.id)
        .map((u) => ({ id: u.userId, name: u.user.name })),
    );
    setAlert(null);
  }, [open, chat, user?.id]);

  const choices = (options.data ?? []).filter((o) => o.id !== user?.id);

  const submit = async () => {
    if (!title.trim()) return setAlert('title');
    if (members.length === 0) return setAlert('users');
    setAlert(null);
    try {
      const input = { title: title.trim(), users: members.map((m) => ({ id: m.id, name: m.name })) };
      const saved = await save.mutateAsync({ id: chat?.id, input });
      onSaved?.(saved);
      onClose();
    } catch {
      // Chat calls fail silently (docs/product.md#errors): the dialog stays open with what was typed.
    }
  };

  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" data-testid="chat-dialog">
      <DialogTitle>{chat ? t('chats.edit') : t('chats.new')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {alert && (
            <Alert severity="warning" data-testid="chat-dialog-alert">
              {alert === 'title' ? t('chats.alertTitle') : t('chats.alertUsers')}
            </Alert>
          )}
          <TextField
            label={t('chats.titleField')}
            value={title}
            autoFocus
            onChange={(e) => setTitle(e.target.value)}
            slotProps={{ htmlInput: { maxLength: CHAT_TITLE_MAX, 'data-testid': 'chat-title-input' } }}
          />
          <Autocomplete
            multiple
            options={choices}
            value={members}
            loading={options.isLoading}
            getOptionLabel={(o) => o.name}
            isOptionEqualToValue={(a, b) => a.id === b.id}
            onChange={(_e, v) => setMembers(v)}
            renderValue={(value, getItemProps) =>
              value.map((o, index) => {
                const { key, ...props } = getItemProps({ index });
                return <Chip key={key} size="small" label={o.name} {...props} />;
              })
            }
            renderInput={(params) => (
              <TextField
                {...params}
                label={t('chats.users')}
                slotProps={{
                  ...params.slotProps,
                  htmlInput: { ...params.slotProps.htmlInput, 'data-testid': 'chat-users-input' },
                }}
              />
            )}
            noOptionsText={t('chats.noUsers')}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button variant="contained" onClick={submit} disabled={save.isPending} data-testid="chat-dialog-save">
          {t('common.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
