import { useState } from 'react';
import { AppBar, Box, Button, IconButton, Toolbar, Tooltip, Typography } from '@mui/material';
import MenuIcon from '@mui/icons-material/Menu';
import MenuOpenIcon from '@mui/icons-material/MenuOpen';
import RefreshOutlinedIcon from '@mui/icons-material/RefreshOutlined';
import WorkspacePremiumOutlinedIcon from '@mui/icons-material/WorkspacePremiumOutlined';
import { Trans, useTranslation } from 'react-i18next';
import type { Language } from '@recado/contracts';
import { api } from '../api/client.js';
import { useAuth } from '../app/auth.js';
import { useToast } from '../app/useToast.js';
import { LanguageMenu } from '../components/LanguageMenu.js';
import { ThemeToggle } from '../components/ThemeToggle.js';
import { VolumeControl } from './VolumeControl.js';
import { NotificationsPopover } from './NotificationsPopover.js';
import { AutomationAlertsPopover } from './AutomationAlertsPopover.js';
import { SlaBreachesPopover } from '../pages/sla/SlaBreachesPopover.js';
import { ConnectionAlertsPopover } from '../pages/connections/health/ConnectionAlertsPopover.js';
import { AnnouncementsPopover } from './AnnouncementsPopover.js';
import { ChatsPopover } from './ChatsPopover.js';
import { ProfileMenu } from './ProfileMenu.js';
import { PremiumDialog } from './PremiumDialog.js';
import { PresenceSwitch } from './PresenceSwitch.js';
import { shortName } from './menu-entries.js';

export function TopBar({
  menuOpen,
  onToggleMenu,
  narrow,
}: {
  menuOpen: boolean;
  onToggleMenu: () => void;
  narrow: boolean;
}) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const [premiumOpen, setPremiumOpen] = useState(false);
  if (!user) return null;
  const setLanguage = (lang: Language) => {
    api.post(`/users/set-language/${lang}`).catch(toast.error);
  };
  const toggleLabel = menuOpen ? t('layout.closeMenu') : t('layout.openMenu');
  return (
    <AppBar
      position="sticky"
      color="inherit"
      elevation={0}
      sx={{ borderBottom: 1, borderColor: 'divider', bgcolor: 'background.paper' }}
    >
      <Toolbar
        sx={{
          minHeight: { xs: 56, sm: 64 },
          gap: { xs: 0, sm: 0.5 },
          px: { xs: 1, sm: 2 },
          '& .MuiIconButton-root': { p: { xs: 0.75, sm: 1 } },
        }}
      >
        <Tooltip title={toggleLabel}>
          <IconButton
            color="inherit"
            edge="start"
            aria-label={toggleLabel}
            aria-expanded={menuOpen}
            data-testid="menu-toggle"
            onClick={onToggleMenu}
            sx={{ mr: { xs: 0.5, sm: 1 } }}
          >
            {menuOpen && !narrow ? <MenuOpenIcon /> : <MenuIcon />}
          </IconButton>
        </Tooltip>
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Typography noWrap data-testid="greeting" sx={{ fontSize: { xs: 14, sm: 16 } }}>
            <Trans
              i18nKey="layout.greeting"
              values={{ name: shortName(user.name, narrow) }}
              components={{ b: <strong /> }}
            />
          </Typography>
          {!narrow && (
            <Typography variant="caption" color="text.secondary" noWrap component="div">
              {user.company.name}
            </Typography>
          )}
        </Box>
        {user.company.trialPeriod &&
          (narrow ? (
            <Tooltip title={t('layout.premium')}>
              <IconButton
                color="warning"
                aria-label={t('layout.premium')}
                data-testid="premium-button"
                onClick={() => setPremiumOpen(true)}
              >
                <WorkspacePremiumOutlinedIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          ) : (
            <Button
              variant="outlined"
              color="warning"
              size="small"
              startIcon={<WorkspacePremiumOutlinedIcon />}
              data-testid="premium-button"
              onClick={() => setPremiumOpen(true)}
              sx={{ mr: 1, borderRadius: 5, fontWeight: 700, textTransform: 'none', whiteSpace: 'nowrap' }}
            >
              {t('layout.premium')}
            </Button>
          ))}
        <PresenceSwitch narrow={narrow} />
        <LanguageMenu onChange={setLanguage} tooltip={Tooltip} />
        <ThemeToggle tooltip={Tooltip} />
        <VolumeControl />
        <Tooltip title={t('layout.refresh')}>
          <IconButton
            color="inherit"
            aria-label={t('layout.refresh')}
            data-testid="refresh-button"
            onClick={() => window.location.reload()}
          >
            <RefreshOutlinedIcon fontSize="small" />
          </IconButton>
        </Tooltip>
        <ConnectionAlertsPopover />
        <AutomationAlertsPopover />
        <SlaBreachesPopover />
        <NotificationsPopover />
        <AnnouncementsPopover />
        <ChatsPopover />
        <ProfileMenu />
      </Toolbar>
      <PremiumDialog open={premiumOpen} onClose={() => setPremiumOpen(false)} />
    </AppBar>
  );
}
