import { useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  IconButton,
  Link,
  ListSubheader,
  Menu,
  MenuItem,
  Paper,
  Tooltip,
  Typography,
} from '@mui/material';
import { alpha } from '@mui/material/styles';
import MoreVertIcon from '@mui/icons-material/MoreVert';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { useTranslation } from 'react-i18next';
import {
  formatNumber,
  isTicketManager,
  kanbanLaneOf,
  type ChannelKindName,
  type Tag,
  type TicketView,
} from '@recado/contracts';
import { ChannelFilter } from '../connections/ChannelFilter.js';
import { ChannelIcon } from '../connections/ConnectionStatus.js';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { viewerOf } from '../../api/tickets.js';
import {
  useKanbanLanes,
  useKanbanRealtime,
  useKanbanTickets,
  useMoveCard,
  useTagsRealtime,
} from '../../api/tags.js';
import { PageHeader } from '../../components/PageHeader.js';
import { TicketAvatar, contactLabel, lastMessageLabel } from '../tickets/ticket-avatar.js';
import { listTime } from '../tickets/ticket-format.js';
import { WhatsAppText } from '../../components/WhatsAppText.js';

/** The drag payload's type: only our own cards are accepted by the lanes. */
const DRAG_TYPE = 'application/x-recado-ticket';
const OPEN_LANE = 'open';
const STATUS_COLOR = { pending: 'warning', open: 'success', closed: 'default' } as const;

function KanbanCard({
  ticket,
  lanes,
  currentLane,
  onMove,
  onDragState,
}: {
  ticket: TicketView;
  lanes: Tag[];
  currentLane: number | null;
  onMove(lane: Tag | null): void;
  onDragState(id: number | null): void;
}) {
  const { t, i18n } = useTranslation();
  const [menu, setMenu] = useState<HTMLElement | null>(null);
  const [dragging, setDragging] = useState(false);
  const name = contactLabel(ticket.contact);
  return (
    <Paper
      variant="outlined"
      draggable
      onDragStart={(e) => {
        e.dataTransfer.setData(DRAG_TYPE, String(ticket.id));
        e.dataTransfer.setData('text/plain', String(ticket.id));
        e.dataTransfer.effectAllowed = 'move';
        setDragging(true);
        onDragState(ticket.id);
      }}
      onDragEnd={() => {
        setDragging(false);
        onDragState(null);
      }}
      data-testid="kanban-card"
      data-ticket-id={ticket.id}
      data-contact={ticket.contact.name}
      aria-roledescription={t('kanban.card')}
      sx={{
        p: 1.25,
        display: 'flex',
        flexDirection: 'column',
        gap: 0.75,
        cursor: 'grab',
        opacity: dragging ? 0.5 : 1,
        transition: 'box-shadow 120ms, border-color 120ms',
        '&:hover': { borderColor: 'primary.main', boxShadow: 2 },
        '&:active': { cursor: 'grabbing' },
      }}
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, minWidth: 0 }}>
        <TicketAvatar contact={ticket.contact} size={32} />
        <Box sx={{ minWidth: 0, flex: 1 }}>
          <Link
            component={RouterLink}
            to={`/tickets/${ticket.uuid}`}
            draggable={false}
            underline="hover"
            color="text.primary"
            sx={{
              fontWeight: 600,
              display: 'block',
              overflow: 'hidden',
              textOverflow: 'ellipsis',
              whiteSpace: 'nowrap',
            }}
            data-testid="kanban-card-link"
          >
            {name}
          </Link>
          <Typography
            variant="caption"
            color="text.secondary"
            noWrap
            component="div"
            data-testid="kanban-card-number"
            sx={{ display: 'flex', alignItems: 'center', gap: 0.5 }}
          >
            {/* #34.4 The channel the customer wrote on; a contact without a phone shows its connection. */}
            {ticket.whatsapp ? <ChannelIcon channel={ticket.whatsapp.channel} size={14} /> : null}
            <Box component="span" sx={{ overflow: 'hidden', textOverflow: 'ellipsis' }}>
              {ticket.contact.number ? formatNumber(ticket.contact.number) : (ticket.whatsapp?.name ?? '')}
            </Box>
          </Typography>
        </Box>
        <Tooltip title={t('kanban.moveTo')}>
          <IconButton
            size="small"
            aria-label={t('kanban.moveTo')}
            aria-haspopup="menu"
            onClick={(e) => setMenu(e.currentTarget)}
            data-testid="kanban-card-menu"
          >
            <MoreVertIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      </Box>
      <Typography
        variant="body2"
        color="text.secondary"
        data-testid="kanban-card-message"
        sx={{
          display: '-webkit-box',
          WebkitLineClamp: 2,
          WebkitBoxOrient: 'vertical',
          overflow: 'hidden',
          wordBreak: 'break-word',
          minHeight: '1.43em',
        }}
      >
        {ticket.lastMessage ? <WhatsAppText text={lastMessageLabel(ticket.lastMessage, t)} /> : '—'}
      </Typography>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.75, flexWrap: 'wrap' }}>
        <Chip
          size="small"
          variant="outlined"
          color={STATUS_COLOR[ticket.status]}
          label={t(`tickets.status.${ticket.status}`)}
          sx={{ height: 20, fontSize: 11 }}
        />
        {ticket.queue ? (
          <Chip
            size="small"
            label={ticket.queue.name}
            sx={{ height: 20, fontSize: 11, bgcolor: alpha(ticket.queue.color, 0.18), color: 'text.primary' }}
          />
        ) : null}
        <Box sx={{ flex: 1 }} />
        <Typography variant="caption" color="text.secondary">
          {listTime(ticket.updatedAt, i18n.language)}
        </Typography>
      </Box>
      <Menu anchorEl={menu} open={Boolean(menu)} onClose={() => setMenu(null)}>
        <ListSubheader sx={{ lineHeight: 2.5 }}>{t('kanban.moveTo')}</ListSubheader>
        {[null, ...lanes].map((lane) => (
          <MenuItem
            key={lane?.id ?? OPEN_LANE}
            disabled={(lane?.id ?? null) === currentLane}
            onClick={() => {
              setMenu(null);
              onMove(lane);
            }}
            data-testid="kanban-move-option"
          >
            <Box
              component="span"
              sx={{
                width: 10,
                height: 10,
                borderRadius: '50%',
                mr: 1.25,
                bgcolor: lane?.color ?? 'text.disabled',
              }}
            />
            {lane?.name ?? t('kanban.openLane')}
          </MenuItem>
        ))}
        <MenuItem component={RouterLink} to={`/tickets/${ticket.uuid}`}>
          <OpenInNewIcon fontSize="small" sx={{ mr: 1.25 }} />
          {t('kanban.openTicket')}
        </MenuItem>
      </Menu>
    </Paper>
  );
}

function Lane({
  lane,
  tickets,
  lanes,
  draggingFrom,
  onDropTicket,
  onMove,
  onDragState,
}: {
  lane: Tag | null;
  tickets: TicketView[];
  lanes: Tag[];
  /** The lane of the card being dragged (undefined when nothing is dragged). */
  draggingFrom: number | null | undefined;
  onDropTicket(ticketId: number, lane: Tag | null): void;
  onMove(ticket: TicketView, lane: Tag | null): void;
  onDragState(id: number | null): void;
}) {
  const { t } = useTranslation();
  const [over, setOver] = useState(0);
  const laneId = lane?.id ?? null;
  const canDrop = draggingFrom !== undefined && draggingFrom !== laneId;
  const accepts = (e: DragEvent) =>
    e.dataTransfer.types.includes(DRAG_TYPE) || e.dataTransfer.types.includes('text/plain');
  return (
    <Paper
      variant="outlined"
      data-testid="kanban-lane"
      data-lane={lane ? String(lane.id) : OPEN_LANE}
      data-lane-name={lane?.name ?? t('kanban.openLane')}
      onDragEnter={(e) => {
        if (!accepts(e)) return;
        e.preventDefault();
        setOver((n) => n + 1);
      }}
      onDragOver={(e) => {
        if (!accepts(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'move';
      }}
      onDragLeave={() => setOver((n) => Math.max(0, n - 1))}
      onDrop={(e) => {
        e.preventDefault();
        setOver(0);
        const id = Number(e.dataTransfer.getData(DRAG_TYPE) || e.dataTransfer.getData('text/plain'));
        if (Number.isInteger(id) && id > 0) onDropTicket(id, lane);
      }}
      sx={{
        width: 300,
        flexShrink: 0,
        display: 'flex',
        flexDirection: 'column',
        minHeight: 0,
        maxHeight: '100%',
        bgcolor: (theme) =>
          theme.palette.mode === 'dark' ? alpha(theme.palette.common.white, 0.03) : theme.palette.grey[50],
        borderColor: over && canDrop ? 'primary.main' : 'divider',
        outline: over && canDrop ? '2px dashed' : 'none',
        outlineColor: 'primary.main',
        outlineOffset: -2,
        overflow: 'hidden',
      }}
    >
      <Box sx={{ height: 4, bgcolor: lane?.color ?? 'text.disabled', opacity: lane ? 1 : 0.4 }} />
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 1.5, py: 1 }}>
        <Typography sx={{ fontWeight: 600, flex: 1, minWidth: 0 }} noWrap data-testid="kanban-lane-title">
          {lane?.name ?? t('kanban.openLane')}
        </Typography>
        <Chip size="small" label={tickets.length} data-testid="kanban-lane-count" />
      </Box>
      <Box
        sx={{
          flex: 1,
          minHeight: 80,
          overflowY: 'auto',
          px: 1,
          pb: 1,
          display: 'flex',
          flexDirection: 'column',
          gap: 1,
        }}
      >
        {tickets.map((ticket) => (
          <KanbanCard
            key={ticket.id}
            ticket={ticket}
            lanes={lanes}
            currentLane={laneId}
            onMove={(to) => onMove(ticket, to)}
            onDragState={onDragState}
          />
        ))}
        {tickets.length === 0 ? (
          <Typography variant="body2" color="text.secondary" sx={{ textAlign: 'center', py: 3 }}>
            {t('kanban.emptyLane')}
          </Typography>
        ) : null}
      </Box>
    </Paper>
  );
}

function Board() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const viewer = useMemo(() => viewerOf(user!), [user]);
  // docs/team-tools.md: showAll for those who see every ticket (admins, supervisors); the others ask for their queues.
  const showAll = Boolean(user) && isTicketManager(user!);
  const queueIds = useMemo(() => (showAll ? [] : viewer.queueIds), [showAll, viewer]);
  const lanesQuery = useKanbanLanes();
  // #34.4 The channel filter: asked of the server, and applied to cards that arrive live.
  const [channels, setChannels] = useState<ChannelKindName[]>([]);
  const channelKey = useMemo(() => [...channels].sort(), [channels]);
  const board = useKanbanTickets(showAll, queueIds, true, channelKey);
  useTagsRealtime();
  useKanbanRealtime();
  const move = useMoveCard(viewer);
  const [dragging, setDragging] = useState<number | null>(null);
  const lanes = useMemo(() => lanesQuery.data ?? [], [lanesQuery.data]);
  const tickets = useMemo(
    () =>
      (board.data?.tickets ?? []).filter(
        (x) => !channelKey.length || channelKey.includes(x.whatsapp?.channel as ChannelKindName),
      ),
    [board.data, channelKey],
  );

  const byLane = useMemo(() => {
    const map = new Map<number | null, TicketView[]>([
      [null, []],
      ...lanes.map((l) => [l.id, []] as [number, TicketView[]]),
    ]);
    for (const ticket of tickets) map.get(kanbanLaneOf(ticket, lanes))?.push(ticket);
    return map;
  }, [tickets, lanes]);
  const draggingFrom = useMemo(() => {
    if (dragging === null) return undefined;
    const ticket = tickets.find((x) => x.id === dragging);
    return ticket ? kanbanLaneOf(ticket, lanes) : undefined;
  }, [dragging, tickets, lanes]);

  const doMove = (ticket: TicketView, lane: Tag | null) => {
    if (kanbanLaneOf(ticket, lanes) === (lane?.id ?? null)) return;
    move.mutate({ ticket, lane, lanes }, { onError: (err) => toast.error(err) });
  };
  const onDropTicket = (ticketId: number, lane: Tag | null) => {
    const ticket = tickets.find((x) => x.id === ticketId);
    if (ticket) doMove(ticket, lane);
  };

  // The board scrolls sideways; a wheel over it without a vertical scroll of its own moves it too.
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      if (Math.abs(e.deltaY) <= Math.abs(e.deltaX)) return;
      const inLane = (e.target as HTMLElement).closest('[data-testid="kanban-lane"] > div:last-child');
      if (inLane && inLane.scrollHeight > inLane.clientHeight) return;
      el.scrollLeft += e.deltaY;
    };
    el.addEventListener('wheel', onWheel, { passive: true });
    return () => el.removeEventListener('wheel', onWheel);
  }, []);

  const loading = lanesQuery.isLoading || board.isLoading;
  return (
    <Box
      sx={{
        p: { xs: 1.5, sm: 3 },
        display: 'flex',
        flexDirection: 'column',
        gap: 2,
        height: '100%',
        minHeight: 0,
      }}
    >
      <PageHeader title={t('kanban.title')} count={board.data ? tickets.length : undefined}>
        <ChannelFilter value={channels} onChange={setChannels} />
        <Button component={RouterLink} to="/tags" variant="outlined" size="small">
          {t('kanban.manageTags')}
        </Button>
      </PageHeader>
      {!loading && lanes.length === 0 ? (
        <Alert severity="info" data-testid="kanban-no-lanes">
          {t('kanban.noLanes')}
        </Alert>
      ) : null}
      {board.data?.hasMore ? (
        <Alert severity="info">{t('kanban.limited', { count: tickets.length })}</Alert>
      ) : null}
      {loading ? (
        <Box sx={{ display: 'grid', placeItems: 'center', py: 6 }}>
          <CircularProgress aria-label={t('common.loading')} />
        </Box>
      ) : (
        <Box
          ref={scroller}
          data-testid="kanban-board"
          sx={{
            display: 'flex',
            gap: 1.5,
            alignItems: 'stretch',
            overflowX: 'auto',
            flex: 1,
            minHeight: 0,
            height: { xs: 'calc(100dvh - 190px)', sm: 'calc(100dvh - 170px)' },
            pb: 1,
          }}
        >
          {[null, ...lanes].map((lane) => (
            <Lane
              key={lane?.id ?? OPEN_LANE}
              lane={lane}
              lanes={lanes}
              tickets={byLane.get(lane?.id ?? null) ?? []}
              draggingFrom={draggingFrom}
              onDropTicket={onDropTicket}
              onMove={doMove}
              onDragState={setDragging}
            />
          ))}
        </Box>
      )}
    </Box>
  );
}

/** Kanban (docs/team-tools.md): tickets in lanes by kanban tag; the router's PlanRoute asks for useKanban. */
export default function KanbanPage() {
  return <Board />;
}
