import { useState } from 'react';
import {
  Box,
  Button,
  Chip,
  IconButton,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import { useTranslation } from 'react-i18next';
import { can, type UserView } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useDeleteUser, useUsersList, useUsersRealtime } from '../../api/users.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { SearchField } from '../../components/SearchField.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { UserDialog } from './UserDialog.js';

const PROFILE_COLOR = { admin: 'primary', supervisor: 'secondary', user: 'default' } as const;

function OnlineDot({ online }: { online: boolean }) {
  const { t } = useTranslation();
  const label = t(online ? 'users.online' : 'users.offline');
  return (
    <Tooltip title={label}>
      <Box
        component="span"
        role="img"
        aria-label={label}
        data-online={online}
        sx={{
          display: 'inline-block',
          flexShrink: 0,
          width: 10,
          height: 10,
          borderRadius: '50%',
          bgcolor: online ? 'success.main' : 'action.disabled',
          boxShadow: online ? (theme) => `0 0 0 3px ${theme.palette.success.main}33` : 'none',
        }}
      />
    </Tooltip>
  );
}

/** Users of the company (core §2): search, infinite scroll, add/edit dialog, delete confirmation. */
export default function UsersPage() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const toast = useToast();
  const manage = can(me, 'users:manage');
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search, 500);
  const list = useUsersList(debouncedSearch);
  useUsersRealtime();
  const remove = useDeleteUser();
  /** undefined: closed; null: a new user; else the user being edited. */
  const [editing, setEditing] = useState<UserView | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<UserView | null>(null);

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('users.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  const columns = manage ? 4 : 3;
  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('users.title')}>
        <SearchField value={search} onChange={setSearch} />
        {manage ? (
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing(null)}>
            {t('users.add')}
          </Button>
        ) : null}
      </PageHeader>

      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer
          ref={list.scrollRootRef}
          sx={{ maxHeight: { xs: 'calc(100dvh - 200px)', sm: 'calc(100dvh - 170px)' } }}
          data-testid="users-list"
        >
          <Table stickyHeader size="small" aria-label={t('users.title')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('users.name')}</TableCell>
                <TableCell>{t('users.email')}</TableCell>
                <TableCell>{t('users.profile')}</TableCell>
                {manage ? <TableCell align="right">{t('common.actions')}</TableCell> : null}
              </TableRow>
            </TableHead>
            <TableBody>
              {list.items.map((u) => (
                <TableRow key={u.id} hover data-testid="user-row">
                  <TableCell>
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25 }}>
                      <OnlineDot online={u.online} />
                      <Typography variant="body2" sx={{ fontWeight: 500 }}>
                        {u.name}
                      </Typography>
                      {u.super ? <Chip size="small" variant="outlined" label={t('users.super')} /> : null}
                    </Box>
                  </TableCell>
                  <TableCell sx={{ color: 'text.secondary' }}>{u.email}</TableCell>
                  <TableCell>
                    <Chip
                      size="small"
                      variant={u.profile === 'user' ? 'outlined' : 'filled'}
                      color={PROFILE_COLOR[u.profile as keyof typeof PROFILE_COLOR] ?? 'default'}
                      label={t(`users.profiles.${u.profile}`, { defaultValue: u.profile })}
                    />
                  </TableCell>
                  {manage ? (
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      <Tooltip title={t('common.edit')}>
                        <IconButton size="small" aria-label={t('common.edit')} onClick={() => setEditing(u)}>
                          <EditOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('common.delete')}>
                        <span>
                          <IconButton
                            size="small"
                            aria-label={t('common.delete')}
                            disabled={u.id === me?.id}
                            onClick={() => setDeleting(u)}
                          >
                            <DeleteOutlinedIcon fontSize="small" />
                          </IconButton>
                        </span>
                      </Tooltip>
                    </TableCell>
                  ) : null}
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={columns}
                loading={list.isLoading || list.isFetchingNextPage}
                empty={!list.isLoading && list.items.length === 0}
              />
            </TableBody>
          </Table>
          <Box ref={list.sentinelRef} sx={{ height: 1 }} aria-hidden />
        </TableContainer>
      </Paper>

      {manage ? (
        <UserDialog
          open={editing !== undefined}
          user={editing ?? null}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
      <ConfirmationDialog
        open={deleting !== null}
        title={t('users.deleteTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('users.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
