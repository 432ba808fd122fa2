import { useState } from 'react';
import { useNavigate } from 'react-router';
import {
  Avatar,
  Box,
  Divider,
  IconButton,
  ListItemIcon,
  Menu,
  MenuItem,
  Tooltip,
  Typography,
} from '@mui/material';
import PersonOutlineOutlinedIcon from '@mui/icons-material/PersonOutlineOutlined';
import LogoutOutlinedIcon from '@mui/icons-material/LogoutOutlined';
import KeyOutlinedIcon from '@mui/icons-material/KeyOutlined';
import NotificationsActiveOutlinedIcon from '@mui/icons-material/NotificationsActiveOutlined';
import NotificationsOffOutlinedIcon from '@mui/icons-material/NotificationsOffOutlined';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../app/auth.js';
import { useToast } from '../app/useToast.js';
import { forgetPushSubscription, usePushNavigation, usePushSubscription } from '../api/push.js';
import { ProfileDialog } from './ProfileDialog.js';

export const initials = (name: string) =>
  name
    .trim()
    .split(/\s+/)
    .slice(0, 2)
    .map((p) => p[0]?.toUpperCase() ?? '')
    .join('') || '?';

/** Web Push opt-in (docs/push.md): on or off for this browser; hidden where the browser cannot. */
function PushMenuItem({ onDone }: { onDone(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const { user } = useAuth();
  const push = usePushSubscription(Boolean(user));
  if (push.state === 'unsupported') return null;
  const on = push.state === 'on';
  return (
    <MenuItem
      data-testid="push-toggle"
      data-state={push.state}
      disabled={push.state === 'busy'}
      onClick={async () => {
        onDone();
        if (push.state === 'denied') return toast.warning('layout.push.denied');
        try {
          if (on) {
            await push.turnOff();
            toast.info('layout.push.disabled');
          } else {
            const result = await push.turnOn();
            if (result === 'on') toast.success('layout.push.enabled');
            else if (Notification.permission === 'denied') toast.warning('layout.push.denied');
          }
        } catch {
          toast.warning('layout.push.failed');
        }
      }}
    >
      <ListItemIcon>
        {on ? (
          <NotificationsOffOutlinedIcon fontSize="small" />
        ) : (
          <NotificationsActiveOutlinedIcon fontSize="small" />
        )}
      </ListItemIcon>
      {t(on ? 'layout.push.disable' : 'layout.push.enable')}
    </MenuItem>
  );
}

/** The avatar menu: own profile, push notifications, API tokens and logout. */
export function ProfileMenu() {
  const { t } = useTranslation();
  const { user, logout } = useAuth();
  const navigate = useNavigate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [profileOpen, setProfileOpen] = useState(false);
  usePushNavigation();
  if (!user) return null;
  const label = t('layout.account');
  return (
    <>
      <Tooltip title={label}>
        <IconButton
          aria-label={label}
          data-testid="profile-button"
          onClick={(e) => setAnchor(e.currentTarget)}
          sx={{ p: 0.5, ml: 0.5 }}
        >
          <Avatar sx={{ width: 32, height: 32, fontSize: 14, fontWeight: 700, bgcolor: 'primary.main' }}>
            {initials(user.name)}
          </Avatar>
        </IconButton>
      </Tooltip>
      <Menu
        anchorEl={anchor}
        open={Boolean(anchor)}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{ paper: { sx: { mt: 1, minWidth: 240, borderRadius: 3 } } }}
      >
        <Box sx={{ px: 2, py: 1.25 }}>
          <Typography sx={{ fontWeight: 700 }} noWrap>
            {user.name}
          </Typography>
          <Typography variant="body2" color="text.secondary" noWrap>
            {user.email}
          </Typography>
          <Typography variant="caption" color="text.secondary" noWrap component="div">
            {user.company.name}
          </Typography>
        </Box>
        <Divider />
        <MenuItem
          data-testid="profile-open"
          onClick={() => {
            setAnchor(null);
            setProfileOpen(true);
          }}
        >
          <ListItemIcon>
            <PersonOutlineOutlinedIcon fontSize="small" />
          </ListItemIcon>
          {t('layout.profile')}
        </MenuItem>
        <PushMenuItem onDone={() => setAnchor(null)} />
        <MenuItem
          data-testid="api-tokens-open"
          onClick={() => {
            setAnchor(null);
            navigate('/tokens');
          }}
        >
          <ListItemIcon>
            <KeyOutlinedIcon fontSize="small" />
          </ListItemIcon>
          {t('apiTokens.title')}
        </MenuItem>
        <MenuItem
          data-testid="logout"
          onClick={async () => {
            setAnchor(null);
            await forgetPushSubscription();
            await logout();
            navigate('/login', { replace: true });
          }}
        >
          <ListItemIcon>
            <LogoutOutlinedIcon fontSize="small" />
          </ListItemIcon>
          {t('layout.logout')}
        </MenuItem>
      </Menu>
      <ProfileDialog open={profileOpen} onClose={() => setProfileOpen(false)} />
    </>
  );
}
