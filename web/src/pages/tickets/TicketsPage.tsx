import { useMemo, useState } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { Box, Paper, Tab, Tabs, Typography, useMediaQuery } from '@mui/material';
import ForumOutlinedIcon from '@mui/icons-material/ForumOutlined';
import ChatOutlinedIcon from '@mui/icons-material/ChatOutlined';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../app/auth.js';
import { Logo } from '../../components/Logo.js';
import type { TicketView } from '@recado/contracts';
import { useTicketsRealtime, viewerOf } from '../../api/tickets.js';
import { TicketManager } from './TicketManager.js';
import { TicketChat } from './TicketChat.js';

export const MANAGER_WIDTH = 400;

function Welcome() {
  const { t } = useTranslation();
  return (
    <Box
      data-testid="tickets-welcome"
      sx={{
        height: '100%',
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        gap: 2,
        p: 3,
        textAlign: 'center',
      }}
    >
      <Logo size={56} />
      <Typography color="text.secondary" sx={{ maxWidth: 360 }}>
        {t('tickets.welcome')}
      </Typography>
    </Box>
  );
}

/**
 * /tickets/:ticketId? — the ticket manager at the left and the chosen ticket's chat at the right; under
 * 900 px the two are tabs ("tickets" and "attendance").
 */
export default function TicketsPage() {
  const { t } = useTranslation();
  const { ticketId } = useParams();
  const { user } = useAuth();
  const location = useLocation();
  const navigate = useNavigate();
  const wide = useMediaQuery('(min-width:900px)', { noSsr: true });
  const viewer = useMemo(() => (user ? viewerOf(user) : null), [user]);
  useTicketsRealtime(viewer);

  // The contacts page starts a ticket by coming here with the contact.
  const startContactId = (location.state as { contactId?: number } | null)?.contactId ?? null;
  const clearStart = () => void navigate(location.pathname, { replace: true, state: null });

  // Narrow: a chosen ticket shows the attendance tab until the user picks the list again.
  const [choice, setChoice] = useState<{ ref: string | undefined; tab: 'tickets' | 'attendance' } | null>(
    null,
  );
  const tab = choice && choice.ref === ticketId ? choice.tab : ticketId ? 'attendance' : 'tickets';

  // A ticket the chat keeps open with a new status: the manager shows the tab it is now in.
  const [followed, setFollowed] = useState<TicketView | null>(null);

  const manager = (
    <TicketManager
      followed={followed}
      startContactId={startContactId}
      onStartHandled={clearStart}
      onOpenTicket={(ref) => setChoice({ ref, tab: 'attendance' })}
    />
  );
  const chat = ticketId ? (
    <TicketChat key={ticketId} ticketRef={ticketId} narrow={!wide} onFollow={setFollowed} />
  ) : (
    <Welcome />
  );

  if (wide)
    return (
      <Box sx={{ display: 'flex', height: '100%', overflow: 'hidden' }} data-testid="tickets-page">
        <Paper
          square
          elevation={0}
          sx={{
            width: MANAGER_WIDTH,
            flexShrink: 0,
            borderRight: 1,
            borderColor: 'divider',
            display: 'flex',
            flexDirection: 'column',
            minHeight: 0,
          }}
        >
          {manager}
        </Paper>
        <Box sx={{ flex: 1, minWidth: 0, minHeight: 0 }}>{chat}</Box>
      </Box>
    );

  return (
    <Box
      sx={{ display: 'flex', flexDirection: 'column', height: '100%', overflow: 'hidden' }}
      data-testid="tickets-page"
    >
      <Paper square elevation={0} sx={{ borderBottom: 1, borderColor: 'divider' }}>
        <Tabs
          value={tab}
          onChange={(_e, v: 'tickets' | 'attendance') => setChoice({ ref: ticketId, tab: v })}
          variant="fullWidth"
          aria-label={t('tickets.title')}
        >
          <Tab
            value="tickets"
            label={t('tickets.narrow.tickets')}
            icon={<ForumOutlinedIcon fontSize="small" />}
            iconPosition="start"
            sx={{ minHeight: 48 }}
          />
          <Tab
            value="attendance"
            label={t('tickets.narrow.attendance')}
            icon={<ChatOutlinedIcon fontSize="small" />}
            iconPosition="start"
            sx={{ minHeight: 48 }}
          />
        </Tabs>
      </Paper>
      <Box
        sx={{ flex: 1, minHeight: 0, display: tab === 'tickets' ? 'flex' : 'none', flexDirection: 'column' }}
      >
        {manager}
      </Box>
      <Box sx={{ flex: 1, minHeight: 0, display: tab === 'attendance' ? 'block' : 'none' }}>{chat}</Box>
    </Box>
  );
}
