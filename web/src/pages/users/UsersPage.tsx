import { Box, Chip, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { can, type UserView } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { userResource } from '../../api/users.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { UserDialog } from './UserDialog.js';
import { PresenceDot } from '../../layout/PresenceSwitch.js';

const PROFILE_COLOR = { admin: 'primary', supervisor: 'secondary', user: 'default' } as const;

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
          <PresenceDot presence={u.presence} label={t(`presence.${u.presence}`)} />
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
