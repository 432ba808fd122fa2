import { useEffect, useRef, useState, type ReactNode } from 'react';
import {
  Box,
  Button,
  ButtonBase,
  Chip,
  CircularProgress,
  IconButton,
  ListItemIcon,
  ListItemText,
  Menu,
  MenuItem,
  Tooltip,
  Typography,
} from '@mui/material';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlined';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import EventOutlinedIcon from '@mui/icons-material/EventOutlined';
import MoreVertIcon from '@mui/icons-material/MoreVert';
import ReplayIcon from '@mui/icons-material/Replay';
import SearchIcon from '@mui/icons-material/Search';
import SwapHorizIcon from '@mui/icons-material/SwapHoriz';
import UndoIcon from '@mui/icons-material/Undo';
import { useTranslation } from 'react-i18next';
import { PriorityMenu, SnoozeMenu } from './PrioritySnooze.js';
import { TicketFieldsButton } from '../custom-fields/TicketFieldsButton.js';
import { MacroMenu } from '../macros/MacroMenu.js';
import { PinToggle } from './pin-forward/PinToggle.js';
import { can, formatNumber, type TicketView } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { usePlanFlag } from '../../app/guards.js';
import { TicketAvatar, contactLabel } from './TicketList.js';
import { SlaChip } from '../sla/SlaChip.js';
import { automationActive } from './AutomationLine.js';
import { OptedOutChip } from '../privacy/OptedOutChip.js';
import { TimelineToggle } from '../timeline/timeline.js';

export type TicketAction = 'accept' | 'return' | 'resolve' | 'reopen' | 'transfer' | 'schedule' | 'delete';

const STATUS_COLOR = { pending: 'warning', open: 'success', closed: 'default' } as const;

/** Below this header width the secondary actions move into the "more" menu. */
const COMPACT_WIDTH = 640;

function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(1000);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(([entry]) => setWidth(entry!.contentRect.width));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return { ref, width };
}

/** Contact, status and the actions the status allows (docs/product.md#states Ticket). */
export function ChatHeader({
  ticket,
  busy,
  narrow,
  onBack,
  onContact,
  onAction,
  onSearch,
  searching = false,
}: {
  ticket: TicketView;
  busy: TicketAction | null;
  narrow: boolean;
  onBack(): void;
  onContact(): void;
  onAction(action: TicketAction): void;
  /** Opens (or closes) the search inside the conversation. */
  onSearch?: () => void;
  searching?: boolean;
}) {
  const { t } = useTranslation();
  const { user } = useAuth();
  // Plan flag useSchedules: without it there is nothing to schedule with.
  const schedules = usePlanFlag('useSchedules');
  const { ref, width } = useWidth();
  const compact = width < COMPACT_WIDTH;
  const [menu, setMenu] = useState<HTMLElement | null>(null);
  const canDelete = can(user, 'ticket-options:deleteTicket');
  const open = ticket.status === 'open';
  const spinner = (a: TicketAction) =>
    busy === a ? <CircularProgress size={16} color="inherit" /> : undefined;

  const menuItems: { action: TicketAction; label: string; icon: ReactNode; danger?: boolean }[] = [];
  if (open && compact) {
    menuItems.push({
      action: 'return',
      label: t('tickets.actions.return'),
      icon: <UndoIcon fontSize="small" />,
    });
    menuItems.push({
      action: 'transfer',
      label: t('tickets.actions.transfer'),
      icon: <SwapHorizIcon fontSize="small" />,
    });
    if (schedules)
      menuItems.push({
        action: 'schedule',
        label: t('tickets.actions.schedule'),
        icon: <EventOutlinedIcon fontSize="small" />,
      });
  }
  if (open && canDelete)
    menuItems.push({
      action: 'delete',
      label: t('tickets.actions.delete'),
      icon: <DeleteOutlineIcon fontSize="small" />,
      danger: true,
    });

  const subtitle = [
    formatNumber(ticket.contact.number),
    // #32.4 The protocol customers quote; the line ends in an ellipsis when the header is narrow.
    ticket.protocol ? `#${ticket.protocol}` : null,
    ticket.user ? t('tickets.header.assignedTo', { name: ticket.user.name }) : null,
    ticket.queue?.name ?? null,
  ]
    .filter(Boolean)
    .join(' · ');

  return (
    <Box
      ref={ref}
      data-testid="chat-header"
      sx={{
        display: 'flex',
        alignItems: 'center',
        // On a phone the contact takes the first line and the actions wrap below it: with every action in one
        // line the name and the subtitle (number, protocol) were squeezed to nothing.
        flexWrap: narrow ? 'wrap' : 'nowrap',
        rowGap: 0.25,
        gap: 0.75,
        px: 1,
        py: 0.75,
        minHeight: 64,
        borderBottom: 1,
        borderColor: 'divider',
        bgcolor: 'background.paper',
      }}
    >
      {narrow ? (
        <Tooltip title={t('tickets.header.back')}>
          <IconButton onClick={onBack} aria-label={t('tickets.header.back')}>
            <ArrowBackIcon />
          </IconButton>
        </Tooltip>
      ) : null}
      <ButtonBase
        onClick={onContact}
        aria-label={t('tickets.header.openContact')}
        data-testid="chat-contact"
        sx={{
          display: 'flex',
          alignItems: 'center',
          gap: 1.25,
          flex: narrow ? '1 1 calc(100% - 56px)' : 1,
          minWidth: 0,
          textAlign: 'left',
          borderRadius: 1,
          p: 0.5,
        }}
      >
        <TicketAvatar contact={ticket.contact} size={40} />
        <Box sx={{ minWidth: 0 }}>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.75, minWidth: 0 }}>
            <Typography noWrap sx={{ fontWeight: 600, lineHeight: 1.3 }} data-testid="chat-contact-name">
              {contactLabel(ticket.contact)}
            </Typography>
            {ticket.status !== 'closed' ? <SlaChip sla={ticket.sla} /> : null}
            <OptedOutChip contactId={ticket.contact.id} />
          </Box>
          <Typography
            variant="caption"
            color="text.secondary"
            noWrap
            component="div"
            title={subtitle}
            data-testid="chat-subtitle"
            data-protocol={ticket.protocol}
          >
            {subtitle}
          </Typography>
        </Box>
      </ButtonBase>
      {onSearch ? (
        <Tooltip title={t('tickets.search.open')}>
          <IconButton
            onClick={onSearch}
            aria-label={t('tickets.search.open')}
            aria-pressed={searching}
            data-testid="chat-search-button"
            color={searching ? 'primary' : 'default'}
          >
            <SearchIcon />
          </IconButton>
        </Tooltip>
      ) : null}
      <TimelineToggle />
      <Chip
        size="small"
        label={t(`tickets.status.${ticket.status}`)}
        color={STATUS_COLOR[ticket.status]}
        variant={ticket.status === 'closed' ? 'outlined' : 'filled'}
        data-testid="chat-status"
        data-status={ticket.status}
        sx={{ display: compact && width < 420 ? 'none' : undefined }}
      />
      {ticket.status === 'pending' ? (
        <Button
          variant="contained"
          color="success"
          size="small"
          onClick={() => onAction('accept')}
          disabled={busy !== null}
          startIcon={spinner('accept') ?? <CheckCircleOutlineIcon />}
          data-testid="chat-accept"
        >
          {/* An automation is answering: a person takes it over rather than accepting a waiting ticket. */}
          {t(automationActive(ticket) ? 'tickets.automation.takeOver' : 'tickets.actions.accept')}
        </Button>
      ) : null}
      {ticket.status === 'closed' ? (
        <Button
          variant="outlined"
          size="small"
          onClick={() => onAction('reopen')}
          disabled={busy !== null}
          startIcon={spinner('reopen') ?? <ReplayIcon />}
          data-testid="chat-reopen"
        >
          {t('tickets.actions.reopen')}
        </Button>
      ) : null}
      {open && !compact ? (
        <Tooltip title={t('tickets.actions.return')}>
          <span>
            <IconButton
              onClick={() => onAction('return')}
              disabled={busy !== null}
              aria-label={t('tickets.actions.return')}
              data-testid="chat-return"
            >
              {spinner('return') ?? <UndoIcon />}
            </IconButton>
          </span>
        </Tooltip>
      ) : null}
      {open ? (
        compact ? (
          <Tooltip title={t('tickets.actions.resolve')}>
            <span>
              <IconButton
                color="success"
                onClick={() => onAction('resolve')}
                disabled={busy !== null}
                aria-label={t('tickets.actions.resolve')}
                data-testid="chat-resolve"
              >
                {spinner('resolve') ?? <CheckCircleOutlineIcon />}
              </IconButton>
            </span>
          </Tooltip>
        ) : (
          <Button
            variant="contained"
            size="small"
            color="success"
            onClick={() => onAction('resolve')}
            disabled={busy !== null}
            startIcon={spinner('resolve') ?? <CheckCircleOutlineIcon />}
            data-testid="chat-resolve"
          >
            {t('tickets.actions.resolve')}
          </Button>
        )
      ) : null}
      {open && !compact ? (
        <>
          <Tooltip title={t('tickets.actions.transfer')}>
            <IconButton
              onClick={() => onAction('transfer')}
              aria-label={t('tickets.actions.transfer')}
              data-testid="chat-transfer"
            >
              <SwapHorizIcon />
            </IconButton>
          </Tooltip>
          {schedules ? (
            <Tooltip title={t('tickets.actions.schedule')}>
              <IconButton
                onClick={() => onAction('schedule')}
                aria-label={t('tickets.actions.schedule')}
                data-testid="chat-schedule"
              >
                <EventOutlinedIcon />
              </IconButton>
            </Tooltip>
          ) : null}
        </>
      ) : null}
      <TicketFieldsButton ticket={ticket} />
      <MacroMenu ticket={ticket} />
      <PinToggle ticket={ticket} />
      {ticket.status !== 'closed' ? <PriorityMenu ticket={ticket} /> : null}
      {open ? <SnoozeMenu ticket={ticket} /> : null}
      {menuItems.length ? (
        <>
          <Tooltip title={t('tickets.header.more')}>
            <IconButton
              onClick={(e) => setMenu(e.currentTarget)}
              aria-label={t('tickets.header.more')}
              aria-haspopup="menu"
              data-testid="chat-more"
            >
              <MoreVertIcon />
            </IconButton>
          </Tooltip>
          <Menu anchorEl={menu} open={Boolean(menu)} onClose={() => setMenu(null)}>
            {menuItems.map((item) => (
              <MenuItem
                key={item.action}
                onClick={() => {
                  setMenu(null);
                  onAction(item.action);
                }}
                sx={item.danger ? { color: 'error.main' } : undefined}
              >
                <ListItemIcon sx={item.danger ? { color: 'inherit' } : undefined}>{item.icon}</ListItemIcon>
                <ListItemText>{item.label}</ListItemText>
              </MenuItem>
            ))}
          </Menu>
        </>
      ) : null}
    </Box>
  );
}
