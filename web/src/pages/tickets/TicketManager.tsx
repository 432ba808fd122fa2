import { useCallback, useEffect, useMemo, useState } from 'react';
import { SlaFilter } from '../sla/SlaFilter.js';
import { ChannelFilter } from '../connections/ChannelFilter.js';
import { CustomFieldFilter, type CustomFieldFilterValue } from '../custom-fields/CustomFieldFilter.js';
import { useNavigate, useParams } from 'react-router';
import {
  Autocomplete,
  Box,
  Button,
  Checkbox,
  FormControl,
  FormControlLabel,
  ListItemText,
  MenuItem,
  Select,
  Switch,
  Tab,
  Tabs,
  TextField,
  Tooltip,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import MoveToInboxOutlinedIcon from '@mui/icons-material/MoveToInboxOutlined';
import TaskAltIcon from '@mui/icons-material/TaskAlt';
import SearchIcon from '@mui/icons-material/Search';
import { useTranslation } from 'react-i18next';
import { can, type ChannelKindName, type TicketView } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { SearchField } from '../../components/SearchField.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import {
  useQueueOptions,
  useTagOptions,
  useTicketList,
  useUpdateTicket,
  useUserOptions,
  viewerOf,
  type TicketFilter,
} from '../../api/tickets.js';
import { TicketList } from './TicketList.js';
import { NewTicketDialog } from './NewTicketDialog.js';
import { PeekDialog } from './PeekDialog.js';
import { SelectToggle, TicketSelectionBar } from '../macros/TicketSelectionBar.js';
import { ticketSelection, useSelecting } from '../macros/ticket-selection.js';

type MainTab = 'open' | 'closed' | 'search';
type OpenTab = 'open' | 'pending' | 'snoozed';

/** The list a ticket of this status is in. */
export const tabOf = (status: string): { tab: MainTab; openTab?: OpenTab } =>
  status === 'closed'
    ? { tab: 'closed' }
    : { tab: 'open', openTab: status === 'pending' ? 'pending' : 'open' };

const countLabel = (n: number, more: boolean) => (more ? `${n}+` : String(n));

function CountTab({ label, count }: { label: string; count: string }) {
  return (
    <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.75 }}>
      {label}
      <Box
        component="span"
        data-testid="tab-count"
        sx={{
          minWidth: 22,
          px: 0.75,
          height: 20,
          borderRadius: 10,
          fontSize: 12,
          fontWeight: 700,
          lineHeight: '20px',
          textAlign: 'center',
          bgcolor: 'action.selected',
        }}
      >
        {count}
      </Box>
    </Box>
  );
}

/**
 * The ticket manager: open (assigned / pending), closed and search tabs; new ticket; the show-all
 * switch and the queue filter. Lists page in on scroll and follow the socket.
 */
export function TicketManager({
  followed = null,
  startContactId,
  onStartHandled,
  onOpenTicket,
}: {
  /** A ticket whose status the chat just changed while keeping it open: its tab is shown. */
  followed?: TicketView | null;
  startContactId: number | null;
  onStartHandled(): void;
  onOpenTicket(ref: string): void;
}) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const navigate = useNavigate();
  const { ticketId } = useParams();
  const viewer = useMemo(() => (user ? viewerOf(user) : null), [user]);

  const [tab, setTab] = useState<MainTab>('open');
  const [openTab, setOpenTab] = useState<OpenTab>('open');
  // Follows the ticket to its tab (a reopened ticket leaves "Resolved" for "Assigned"): adjusted while
  // rendering, once per followed change, so the user can still pick another tab afterwards.
  const [seen, setSeen] = useState(followed);
  if (followed !== seen) {
    setSeen(followed);
    if (followed) {
      const next = tabOf(followed.status);
      // The search tab lists every status: it stays.
      if (tab !== 'search') setTab(next.tab);
      if (next.openTab) setOpenTab(next.openTab);
    }
  }
  const canShowAll = can(user, 'tickets-manager:showall');
  const [showAllChoice, setShowAll] = useState(false);
  const showAll = canShowAll && showAllChoice;
  const queueOptions = useQueueOptions(user);
  const [queueChoice, setQueueChoice] = useState<number[] | null>(null);
  const selectedQueues = (queueChoice ?? queueOptions.map((q) => q.id)).filter((id) =>
    queueOptions.some((q) => q.id === id),
  );
  // Every queue (or none) selected means no filter: the server then applies the user's own visibility.
  const queueIds =
    selectedQueues.length === 0 || selectedQueues.length === queueOptions.length
      ? []
      : [...selectedQueues].sort((a, b) => a - b);
  const [search, setSearch] = useState('');
  const searchParam = useDebouncedValue(search, 500);
  const [userFilter, setUserFilter] = useState<number[]>([]);
  const [tagFilter, setTagFilter] = useState<number[]>([]);
  const [slaFilter, setSlaFilter] = useState<'' | 'at_risk' | 'breached'>('');
  const [channelFilter, setChannelFilter] = useState<ChannelKindName[]>([]);
  const userFilterAllowed = can(user, 'tickets-manager:userFilter');
  const users = useUserOptions(tab === 'search' && userFilterAllowed);
  const tags = useTagOptions();
  const [newOpen, setNewOpen] = useState(false);
  const [peek, setPeek] = useState<TicketView | null>(null);

  const base: Omit<TicketFilter, 'status'> = { searchParam: '', showAll, queueIds, users: [], tags: [] };
  // #30.5 The SLA filter narrows every list (docs/metrics.md "SLA").
  if (slaFilter) base.sla = slaFilter;
  // #32.7 The custom-field filter narrows every list too (docs/productivity.md "Custom fields").
  const [cfFilter, setCfFilter] = useState<CustomFieldFilterValue | null>(null);
  if (cfFilter) base.customFields = cfFilter;
  // #34.4 The channel filter narrows every list (the ticket's connection's channel).
  if (channelFilter.length) base.channels = [...channelFilter].sort();
  const openList = useTicketList({ ...base, status: 'open' });
  const pendingList = useTicketList({ ...base, status: 'pending' });
  // #30.7 "Adiados": the open tickets snoozed until a time or a reply.
  const snoozedList = useTicketList({ ...base, status: 'open', snoozed: true });
  const closedList = useTicketList({ ...base, status: 'closed' }, tab === 'closed');
  const searching = Boolean(searchParam.trim()) || userFilter.length > 0 || tagFilter.length > 0;
  const searchList = useTicketList(
    { ...base, searchParam: searchParam.trim(), users: userFilter, tags: tagFilter },
    tab === 'search' && searching,
  );

  const { mutate: updateTicket } = useUpdateTicket(viewer!);
  const [acceptingId, setAcceptingId] = useState<number | null>(null);
  const accept = useCallback(
    (ticket: TicketView) => {
      if (!user) return;
      setAcceptingId(ticket.id);
      updateTicket(
        { id: ticket.id, input: { status: 'open', userId: user.id } },
        {
          onSuccess: (saved) => {
            setTab('open');
            setOpenTab('open');
            onOpenTicket(saved.uuid);
            void navigate(`/tickets/${saved.uuid}`);
          },
          onError: (err) => toast.error(err),
          onSettled: () => setAcceptingId(null),
        },
      );
    },
    [updateTicket, user, navigate, toast, onOpenTicket],
  );
  const open = useCallback(
    (ticket: TicketView) => {
      onOpenTicket(ticket.uuid);
      void navigate(`/tickets/${ticket.uuid}`);
    },
    [navigate, onOpenTicket],
  );
  const onPeek = can(user, 'tickets-manager:peek') ? setPeek : undefined;
  // #32.1 Several tickets selected to run a macro on (docs/productivity.md "Macros"); left on leaving.
  const selecting = useSelecting();
  useEffect(() => () => ticketSelection.setActive(false), []);

  const list =
    tab === 'open'
      ? openTab === 'open'
        ? openList
        : openTab === 'snoozed'
          ? snoozedList
          : pendingList
      : tab === 'closed'
        ? closedList
        : searchList;
  const emptyText =
    tab === 'search' && !searching
      ? t('tickets.manager.searchHint')
      : tab === 'open' && openTab === 'pending'
        ? t('tickets.manager.noPending')
        : t('tickets.manager.empty');
  const listTestId = tab === 'open' ? `ticket-list-${openTab}` : `ticket-list-${tab}`;

  return (
    <Box
      sx={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }}
      data-testid="ticket-manager"
    >
      <Tabs
        value={tab}
        onChange={(_e, v: MainTab) => setTab(v)}
        variant="fullWidth"
        aria-label={t('tickets.title')}
        sx={{ borderBottom: 1, borderColor: 'divider', minHeight: 56 }}
      >
        <Tab
          value="open"
          label={t('tickets.tabs.open')}
          icon={<MoveToInboxOutlinedIcon fontSize="small" />}
          iconPosition="start"
          sx={{ minHeight: 56 }}
        />
        <Tab
          value="closed"
          label={t('tickets.tabs.closed')}
          icon={<TaskAltIcon fontSize="small" />}
          iconPosition="start"
          sx={{ minHeight: 56 }}
        />
        <Tab
          value="search"
          label={t('tickets.tabs.search')}
          icon={<SearchIcon fontSize="small" />}
          iconPosition="start"
          sx={{ minHeight: 56 }}
        />
      </Tabs>

      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 1.5, py: 1, flexWrap: 'wrap' }}>
        {tab === 'search' ? (
          <SearchField
            value={search}
            onChange={setSearch}
            placeholder={t('tickets.manager.searchPlaceholder')}
            autoFocus
            sx={{ flex: '1 1 100%', minWidth: 0 }}
            data-testid="ticket-search"
          />
        ) : null}
        <Button
          variant="contained"
          size="small"
          startIcon={<AddIcon />}
          onClick={() => setNewOpen(true)}
          data-testid="new-ticket"
        >
          {t('tickets.manager.new')}
        </Button>
        <SelectToggle />
        {canShowAll ? (
          // Above the switch and never taking the pointer: the tabs below stay visible and clickable.
          <Tooltip
            title={t('tickets.manager.showAllHint')}
            placement="top"
            disableInteractive
            enterDelay={500}
          >
            <FormControlLabel
              sx={{ ml: 0.5, mr: 0 }}
              control={
                <Switch
                  size="small"
                  checked={showAllChoice}
                  onChange={(e) => setShowAll(e.target.checked)}
                  slotProps={{ input: { 'aria-label': t('tickets.manager.showAll') } }}
                  data-testid="show-all"
                />
              }
              label={t('tickets.manager.showAll')}
              slotProps={{ typography: { variant: 'body2' } }}
            />
          </Tooltip>
        ) : null}
        <SlaFilter value={slaFilter} onChange={setSlaFilter} />
        <ChannelFilter value={channelFilter} onChange={setChannelFilter} />
        <CustomFieldFilter entity="ticket" value={cfFilter} onChange={setCfFilter} />
        {queueOptions.length ? (
          <FormControl size="small" sx={{ ml: 'auto', minWidth: 120, maxWidth: 170 }}>
            <Select
              multiple
              displayEmpty
              value={selectedQueues}
              onChange={(e) => {
                const v = e.target.value;
                setQueueChoice(typeof v === 'string' ? v.split(',').map(Number) : v);
              }}
              renderValue={(sel) =>
                sel.length === 0 || sel.length === queueOptions.length
                  ? t('tickets.manager.allQueues')
                  : t('tickets.manager.queuesSelected', { count: sel.length })
              }
              inputProps={{ 'aria-label': t('tickets.manager.queues') }}
              data-testid="queue-filter"
              sx={{ fontSize: 14 }}
            >
              {queueOptions.map((q) => (
                <MenuItem key={q.id} value={q.id} dense>
                  <Checkbox size="small" checked={selectedQueues.includes(q.id)} sx={{ p: 0.5, mr: 1 }} />
                  <Box
                    component="span"
                    sx={{ width: 10, height: 10, borderRadius: '50%', bgcolor: q.color || 'grey.500', mr: 1 }}
                  />
                  <ListItemText primary={q.name} />
                </MenuItem>
              ))}
            </Select>
          </FormControl>
        ) : null}
      </Box>

      {tab === 'search' && (userFilterAllowed || (tags.data?.length ?? 0) > 0) ? (
        <Box sx={{ display: 'flex', gap: 1, px: 1.5, pb: 1 }}>
          {userFilterAllowed ? (
            <Autocomplete
              multiple
              size="small"
              options={users.data ?? []}
              loading={users.isLoading}
              getOptionLabel={(o) => o.name}
              isOptionEqualToValue={(a, b) => a.id === b.id}
              value={(users.data ?? []).filter((u) => userFilter.includes(u.id))}
              onChange={(_e, v) => setUserFilter(v.map((u) => u.id))}
              renderInput={(params) => <TextField {...params} label={t('tickets.manager.users')} />}
              sx={{ flex: 1, minWidth: 0 }}
              data-testid="user-filter"
            />
          ) : null}
          {(tags.data?.length ?? 0) > 0 ? (
            <Autocomplete
              multiple
              size="small"
              options={tags.data ?? []}
              getOptionLabel={(o) => o.name}
              isOptionEqualToValue={(a, b) => a.id === b.id}
              value={(tags.data ?? []).filter((tag) => tagFilter.includes(tag.id))}
              onChange={(_e, v) => setTagFilter(v.map((tag) => tag.id))}
              renderInput={(params) => <TextField {...params} label={t('tickets.manager.tags')} />}
              sx={{ flex: 1, minWidth: 0 }}
            />
          ) : null}
        </Box>
      ) : null}

      {tab === 'open' ? (
        <Tabs
          value={openTab}
          onChange={(_e, v: OpenTab) => setOpenTab(v)}
          variant="fullWidth"
          sx={{ minHeight: 40, borderBottom: 1, borderTop: 1, borderColor: 'divider' }}
          aria-label={t('tickets.tabs.open')}
        >
          <Tab
            value="open"
            data-testid="tab-assigned"
            sx={{ minHeight: 40, py: 0.5 }}
            label={
              <CountTab
                label={t('tickets.tabs.assigned')}
                count={countLabel(openList.items.length, Boolean(openList.hasNextPage))}
              />
            }
          />
          <Tab
            value="pending"
            data-testid="tab-pending"
            sx={{ minHeight: 40, py: 0.5 }}
            label={
              <CountTab
                label={t('tickets.tabs.pending')}
                count={countLabel(pendingList.items.length, Boolean(pendingList.hasNextPage))}
              />
            }
          />
          <Tab
            value="snoozed"
            data-testid="tab-snoozed"
            sx={{ minHeight: 40, py: 0.5 }}
            label={
              <CountTab
                label={t('tickets.tabs.snoozed')}
                count={countLabel(snoozedList.items.length, Boolean(snoozedList.hasNextPage))}
              />
            }
          />
        </Tabs>
      ) : (
        <Box sx={{ borderBottom: 1, borderColor: 'divider' }} />
      )}

      <TicketSelectionBar
        visibleIds={() => (tab === 'search' && !searching ? [] : list.items).map((x) => x.id)}
      />
      <Box sx={{ flex: 1, minHeight: 0 }}>
        <TicketList
          key={listTestId}
          testId={listTestId}
          items={tab === 'search' && !searching ? [] : list.items}
          loading={tab === 'search' && !searching ? false : list.isLoading}
          loadingMore={list.isFetchingNextPage}
          hasMore={Boolean(list.hasNextPage)}
          loadMore={() => void list.fetchNextPage()}
          selectedRef={ticketId}
          showUser={showAll || tab !== 'open'}
          acceptingId={acceptingId}
          emptyText={emptyText}
          onOpen={open}
          onAccept={accept}
          onPeek={onPeek}
          search={tab === 'search' ? searchParam.trim() : undefined}
          selecting={selecting}
        />
      </Box>

      <NewTicketDialog
        open={newOpen || startContactId !== null}
        initialContactId={startContactId}
        onClose={() => {
          setNewOpen(false);
          if (startContactId !== null) onStartHandled();
        }}
        onCreated={(ticket) => {
          setNewOpen(false);
          setTab('open');
          setOpenTab(ticket.status === 'pending' ? 'pending' : 'open');
          onOpenTicket(ticket.uuid);
          // Coming from the contacts page: the start request is not kept in the history.
          void navigate(`/tickets/${ticket.uuid}`, { replace: startContactId !== null });
        }}
      />
      {peek ? <PeekDialog ticket={peek} onClose={() => setPeek(null)} /> : null}
    </Box>
  );
}
