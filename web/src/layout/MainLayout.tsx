import { SubscriptionBlock } from '../pages/financeiro/SubscriptionBlock.js';
import { WelcomeWalkthrough } from '../pages/financeiro/WelcomeWalkthrough.js';
import { useState } from 'react';
import { Outlet } from 'react-router';
import { Box, Drawer, useMediaQuery } from '@mui/material';
import { useTheme } from '@mui/material/styles';
import { useAuth } from '../app/auth.js';
import { SideMenu } from './SideMenu.js';
import { TopBar } from './TopBar.js';
import { SessionWatcher } from '../app/SessionWatcher.js';
import { CommandBar } from './CommandBar.js';

const DRAWER_WIDTH = 260;
const MINI_WIDTH = 72;

type Mode = 'wide' | 'medium' | 'narrow';

/**
 * The application shell: side menu and top bar around the current page. Above 1200 px the menu starts
 * open (unless the company setting sideMenuOpen is disabled), between 600 and 1200 px it starts
 * collapsed to icons, and under 600 px it is a temporary drawer. The toggle's choice holds until the
 * window crosses into another of these widths.
 */
export default function MainLayout() {
  const theme = useTheme();
  const { user } = useAuth();
  const wide = useMediaQuery(theme.breakpoints.up('lg'), { noSsr: true });
  const narrow = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  const mode: Mode = narrow ? 'narrow' : wide ? 'wide' : 'medium';
  const startsOpen = user?.company.settings.find((s) => s.key === 'sideMenuOpen')?.value !== 'disabled';
  const [choice, setChoice] = useState<{ mode: Mode; open: boolean } | null>(null);
  const open = choice?.mode === mode ? choice.open : mode === 'wide' && startsOpen;
  const setOpen = (value: boolean) => setChoice({ mode, open: value });

  const width = open ? DRAWER_WIDTH : MINI_WIDTH;
  const transition = theme.transitions.create('width', {
    easing: theme.transitions.easing.sharp,
    duration: open ? theme.transitions.duration.enteringScreen : theme.transitions.duration.leavingScreen,
  });

  return (
    <Box sx={{ display: 'flex', height: '100dvh', bgcolor: 'background.default' }}>
      <SessionWatcher />
      <CommandBar />
      {narrow ? (
        <Drawer
          variant="temporary"
          open={open}
          onClose={() => setOpen(false)}
          ModalProps={{ keepMounted: true }}
          slotProps={{ paper: { sx: { width: DRAWER_WIDTH, backgroundImage: 'none' } } }}
          data-testid="side-menu"
        >
          <SideMenu collapsed={false} onNavigate={() => setOpen(false)} />
        </Drawer>
      ) : (
        <Drawer
          variant="permanent"
          open={open}
          data-testid="side-menu"
          data-collapsed={!open}
          sx={{ width, flexShrink: 0, transition }}
          slotProps={{
            paper: {
              sx: {
                width,
                transition,
                overflowX: 'hidden',
                boxSizing: 'border-box',
                backgroundImage: 'none',
              },
            },
          }}
        >
          <SideMenu collapsed={!open} />
        </Drawer>
      )}
      <Box sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}>
        <TopBar menuOpen={open} onToggleMenu={() => setOpen(!open)} narrow={narrow} />
        <Box component="main" sx={{ flex: 1, minHeight: 0, overflow: 'auto' }}>
          <Outlet />
        </Box>
        <SubscriptionBlock />
        <WelcomeWalkthrough />
      </Box>
    </Box>
  );
}
