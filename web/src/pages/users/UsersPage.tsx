import { Box, Chip, Tooltip, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { can, type UserView } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { userResource } from '../../api/users.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
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

/** Users of the company (docs/product.md#screens): search, infinite scroll, add/edit dialog, delete confirmation. */
export default function UsersPage() {
  const { t } = useTranslation();
  const { user: me } = useAuth();
  const manage = can(me, 'users:manage');
  const columns: ResourceColumn<UserView>[] = [
    {
      header: t('users.name'),
      cell: (u) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25 }}>
          <OnlineDot online={u.online} />
          <Typography variant="body2" sx={{ fontWeight: 500 }}>
            {u.name}
          </Typography>
          {u.super ? <Chip size="small" variant="outlined" label={t('users.super')} /> : null}
        </Box>
      ),
    },
    { header: t('users.email'), sx: { color: 'text.secondary' }, cell: (u) => u.email },
    {
      header: t('users.profile'),
      cell: (u) => (
        <Chip
          size="small"
          variant={u.profile === 'user' ? 'outlined' : 'filled'}
          color={PROFILE_COLOR[u.profile as keyof typeof PROFILE_COLOR] ?? 'default'}
          label={t(`users.profiles.${u.profile}`, { defaultValue: u.profile })}
        />
      ),
    },
  ];
  return (
    <ResourceListPage
      resource={userResource}
      i18n="users"
      columns={columns}
      testIds={{ list: 'users-list', row: 'user-row' }}
      canManage={manage}
      deleteDisabled={(u) => u.id === me?.id}
      deleteTitle={{ value: (u) => u.name }}
      renderDialog={(d) => <UserDialog open={d.open} user={d.record} onClose={d.onClose} />}
    />
  );
}
