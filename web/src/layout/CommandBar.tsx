import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import {
  Box,
  Chip,
  Dialog,
  DialogContent,
  DialogTitle,
  InputAdornment,
  List,
  ListItemButton,
  ListItemIcon,
  ListItemText,
  ListSubheader,
  Table,
  TableBody,
  TableCell,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import ArrowForwardIcon from '@mui/icons-material/ArrowForward';
import WhatsAppIcon from '@mui/icons-material/WhatsApp';
import ContactPhoneOutlinedIcon from '@mui/icons-material/ContactPhoneOutlined';
import AutoFixHighOutlinedIcon from '@mui/icons-material/AutoFixHighOutlined';
import BoltOutlinedIcon from '@mui/icons-material/BoltOutlined';
import { PLAN_FLAGS, can, type ContactView, type TicketView } from '@recado/contracts';
import { api } from '../api/client.js';
import { useAllMacros } from '../api/macros.js';
import { useAuth } from '../app/auth.js';
import { useDebouncedValue } from '../components/useDebouncedValue.js';
import { companyUsesCampaigns } from '../pages/campaign-settings/campaigns-access.js';
import { useMacrosT } from '../pages/macros/macros-i18n.js';
import { useMacroRunner } from '../pages/macros/useMacroRunner.js';
import { ticketSelection, useSelectedCount } from '../pages/macros/ticket-selection.js';
import { menuEntries, type MenuEntry } from './menu-entries.js';

/** The open ticket's actions the header offers, reached by the command bar and the shortcuts. */
export type TicketCommand = 'accept' | 'resolve' | 'return' | 'reopen' | 'transfer';
export const TICKET_ACTION_EVENT = 'recado:ticket-action';
export const NOTE_MODE_EVENT = 'recado:note-mode';

/** Asks the open ticket's chat (TicketChat) to do what its header button does, with the same checks. */
export const ticketCommand = (action: TicketCommand) =>
  window.dispatchEvent(new CustomEvent(TICKET_ACTION_EVENT, { detail: action }));

/** The ticket open in the chat: its id and status, as the chat shows them. */
function openTicket(): { id: number; status: string } | null {
  const el = document.querySelector<HTMLElement>('[data-testid="ticket-chat"]');
  const id = Number(el?.dataset.ticketId);
  return el && id ? { id, status: el.dataset.status ?? '' } : null;
}

const ACTIONS_BY_STATUS: Record<string, TicketCommand[]> = {
  pending: ['accept'],
  open: ['resolve', 'return', 'transfer'],
  closed: ['reopen'],
};

/** Not while typing (inputs, text areas, editable content), except what says so. */
const typing = (e: KeyboardEvent) => {
  const el = e.target as HTMLElement | null;
  return Boolean(el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)));
};

interface Item {
  key: string;
  group: 'screens' | 'tickets' | 'contacts' | 'actions' | 'macros';
  label: string;
  secondary?: string;
  icon: ReactNode;
  run(): void;
}

/** The screens this user may open (the side menu's entries, with its permission and plan rules). */
function useScreens() {
  const { user } = useAuth();
  return useMemo(() => {
    if (!user) return [];
    const plan = Object.fromEntries(PLAN_FLAGS.map((f) => [f, Boolean(user.company.plan[f])])) as Record<
      (typeof PLAN_FLAGS)[number],
      boolean
    >;
    plan.useCampaigns = companyUsesCampaigns(user);
    const { main, admin } = menuEntries(user, plan, localStorage.getItem('cshow') !== null);
    const flat = (list: MenuEntry[]): MenuEntry[] =>
      list.flatMap((e) => (e.children?.length ? flat(e.children) : [e]));
    return flat([...main, ...admin]);
  }, [user]);
}

/**
 * #32.2 The command bar (Ctrl/⌘+K) and the keyboard shortcuts (docs/productivity.md "Command bar and
 * shortcuts"): go to a screen, find a ticket or contact by name, number or protocol, change the open
 * ticket's status, run a macro on it; "?" lists the shortcuts. Everything goes through what the screens do
 * by hand (the menu's entries, the header's actions, the server's checks).
 */
export function CommandBar() {
  const { t } = useMacrosT();
  const { user } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const [open, setOpen] = useState(false);
  const [help, setHelp] = useState(false);
  const [term, setTerm] = useState('');
  const [active, setActive] = useState(0);
  const search = useDebouncedValue(term.trim(), 250);
  const screens = useScreens();
  const macros = useAllMacros(open);
  const runner = useMacroRunner();
  // #32.1 Tickets selected in the list: every macro is offered on them too.
  const selectedCount = useSelectedCount();
  const listRef = useRef<HTMLUListElement>(null);
  const [ticket, setTicket] = useState<{ id: number; status: string } | null>(null);
  const showAll = can(user, 'tickets-manager:showall') || Boolean(user?.super);

  const tickets = useQuery({
    queryKey: ['command-bar', 'tickets', search, showAll],
    queryFn: () =>
      api.get<{ tickets: TicketView[] }>('/tickets', {
        searchParam: search,
        pageNumber: 1,
        ...(showAll ? { showAll: 'true' } : {}),
      }),
    enabled: open && search.length >= 2,
    staleTime: 10_000,
  });
  const contacts = useQuery({
    queryKey: ['command-bar', 'contacts', search],
    queryFn: () => api.get<{ contacts: ContactView[] }>('/contacts', { searchParam: search, pageNumber: 1 }),
    enabled: open && search.length >= 2,
    staleTime: 10_000,
  });

  // The keys: Ctrl/⌘+K and "?" anywhere; the rest only outside text fields (Esc leaves the composer).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const key = e.key.toLowerCase();
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && key === 'k') {
        e.preventDefault();
        setTicket(openTicket());
        setTerm('');
        setActive(0);
        setOpen((o) => !o);
        return;
      }
      if (open || help || e.defaultPrevented) return;
      if (document.querySelector('.MuiDialog-root, .MuiPopover-root, .MuiMenu-root')) return;
      if (typing(e)) {
        if (key === 'escape' && (e.target as HTMLElement).dataset.testid === 'message-text')
          (e.target as HTMLElement).blur();
        return;
      }
      const current = openTicket();
      const fire = (action: TicketCommand) => {
        if (current && ACTIONS_BY_STATUS[current.status]?.includes(action)) {
          e.preventDefault();
          ticketCommand(action);
        }
      };
      if (e.ctrlKey && e.shiftKey && key === 'e') return fire('resolve');
      if (e.ctrlKey || e.metaKey) return;
      if ((e.altKey && e.key === 'ArrowDown') || (!e.altKey && key === 'j')) return step(1, e);
      if ((e.altKey && e.key === 'ArrowUp') || (!e.altKey && key === 'k')) return step(-1, e);
      if (e.altKey) return;
      if (e.key === '?') {
        e.preventDefault();
        setHelp(true);
        return;
      }
      if (key === 'a') return fire('accept');
      if (key === 'e') return fire('resolve');
      if (key === 't') return fire('transfer');
      if (key === 'r' || e.key === '/') {
        const box = document.querySelector<HTMLTextAreaElement>('[data-testid="message-text"]');
        if (box && !box.disabled) {
          e.preventDefault();
          box.focus();
        }
        return;
      }
      if (key === 'n' && current?.status === 'open') {
        e.preventDefault();
        window.dispatchEvent(new CustomEvent(NOTE_MODE_EVENT));
      }
    };
    /** Next or previous ticket of the list on the screen. */
    const step = (by: number, e: KeyboardEvent) => {
      const rows = [...document.querySelectorAll<HTMLElement>('[data-testid="ticket-open"]')];
      if (!rows.length) return;
      e.preventDefault();
      const at = rows.findIndex((r) => r.getAttribute('aria-current') === 'true');
      const next = rows[Math.min(rows.length - 1, Math.max(0, at < 0 ? 0 : at + by))];
      next?.click();
      next?.scrollIntoView({ block: 'nearest' });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, help]);

  const items = useMemo<Item[]>(() => {
    const q = term.trim().toLowerCase();
    const out: Item[] = [];
    const close = () => setOpen(false);
    if (ticket) {
      for (const action of ACTIONS_BY_STATUS[ticket.status] ?? []) {
        const label = t(`macros:commandBar.${action}`);
        if (!q || label.toLowerCase().includes(q))
          out.push({
            key: `action-${action}`,
            group: 'actions',
            label,
            icon: <BoltOutlinedIcon fontSize="small" />,
            run: () => {
              close();
              ticketCommand(action);
            },
          });
      }
      for (const m of macros.data ?? [])
        if (!q || m.name.toLowerCase().includes(q))
          out.push({
            key: `macro-${m.id}`,
            group: 'macros',
            label: m.name,
            secondary: m.actions.map((a) => t(`macros:macros.type.${a.type}`)).join(' → '),
            icon: <AutoFixHighOutlinedIcon fontSize="small" />,
            run: () => {
              close();
              void runner.start(m, [ticket.id]);
            },
          });
    }
    if (selectedCount > 0)
      for (const m of macros.data ?? [])
        if (!q || m.name.toLowerCase().includes(q))
          out.push({
            key: `macro-selected-${m.id}`,
            group: 'macros',
            label: t('macros:macros.runOnSelected', { name: m.name, count: selectedCount }),
            secondary: m.actions.map((a) => t(`macros:macros.type.${a.type}`)).join(' → '),
            icon: <AutoFixHighOutlinedIcon fontSize="small" />,
            run: () => {
              close();
              void runner.start(m, ticketSelection.ids()).then((failed) => {
                if (failed) ticketSelection.replace(failed);
              });
            },
          });
    for (const s of screens) {
      const label = t(`menu.${s.key}`);
      if (!q || label.toLowerCase().includes(q))
        out.push({
          key: `screen-${s.key}`,
          group: 'screens',
          label: t('macros:commandBar.goTo', { name: label }),
          icon: <ArrowForwardIcon fontSize="small" />,
          run: () => {
            close();
            void navigate(s.to);
          },
        });
    }
    if (q.length >= 2) {
      for (const tk of tickets.data?.tickets ?? [])
        out.push({
          key: `ticket-${tk.id}`,
          group: 'tickets',
          label: `${tk.contact.name || tk.contact.number}`,
          secondary: [
            (tk as { protocol?: string | null }).protocol ?? `#${tk.id}`,
            tk.contact.number,
            t(`tickets.status.${tk.status}`),
          ]
            .filter(Boolean)
            .join(' · '),
          icon: <WhatsAppIcon fontSize="small" />,
          run: () => {
            close();
            void navigate(`/tickets/${tk.uuid}`);
          },
        });
      for (const c of contacts.data?.contacts ?? [])
        out.push({
          key: `contact-${c.id}`,
          group: 'contacts',
          label: c.name || c.number,
          secondary: c.number,
          icon: <ContactPhoneOutlinedIcon fontSize="small" />,
          run: () => {
            close();
            void navigate(`/contacts?search=${encodeURIComponent(c.number || c.name)}`);
          },
        });
    }
    // Found tickets first when searching (a protocol or a number is what one types to find one).
    const order =
      q.length >= 2
        ? ['tickets', 'contacts', 'actions', 'macros', 'screens']
        : ['actions', 'macros', 'screens'];
    return out.sort((a, b) => order.indexOf(a.group) - order.indexOf(b.group));
  }, [term, ticket, selectedCount, macros.data, screens, tickets.data, contacts.data, t, navigate, runner]);

  useEffect(() => setActive(0), [items.length, search]);
  useEffect(() => {
    listRef.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [active]);
  // A new screen closes the bar.
  useEffect(() => setOpen(false), [location.pathname]);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setActive((a) => Math.min(items.length - 1, a + 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => Math.max(0, a - 1));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      items[active]?.run();
    }
  };

  let lastGroup = '';
  return (
    <>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        fullWidth
        maxWidth="sm"
        slotProps={{ paper: { sx: { alignSelf: 'flex-start', mt: { xs: 2, sm: 8 }, mx: { xs: 1, sm: 4 } } } }}
        aria-label={t('macros:commandBar.open')}
        data-testid="command-bar"
      >
        <Box sx={{ p: 1.5, pb: 1 }}>
          <TextField
            autoFocus
            fullWidth
            size="small"
            value={term}
            onChange={(e) => setTerm(e.target.value)}
            onKeyDown={onKeyDown}
            placeholder={t('macros:commandBar.placeholder')}
            slotProps={{
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon />
                  </InputAdornment>
                ),
              },
              htmlInput: {
                'data-testid': 'command-bar-input',
                'aria-activedescendant': items[active] ? `cmd-${items[active]!.key}` : undefined,
                'aria-controls': 'command-bar-results',
                role: 'combobox',
                'aria-expanded': true,
              },
            }}
          />
        </Box>
        <List
          ref={listRef}
          dense
          id="command-bar-results"
          role="listbox"
          sx={{ maxHeight: '60dvh', overflow: 'auto', pt: 0 }}
          data-testid="command-bar-results"
        >
          {items.length === 0 ? (
            <Typography color="text.secondary" sx={{ px: 2, py: 1.5 }} data-testid="command-bar-empty">
              {tickets.isFetching || contacts.isFetching ? '…' : t('macros:commandBar.empty')}
            </Typography>
          ) : null}
          {items.map((item, i) => {
            const header = item.group !== lastGroup ? t(`macros:commandBar.${item.group}`) : null;
            lastGroup = item.group;
            return (
              <Box key={item.key}>
                {header ? (
                  <ListSubheader sx={{ lineHeight: '28px', bgcolor: 'background.paper' }}>
                    {header}
                  </ListSubheader>
                ) : null}
                <ListItemButton
                  id={`cmd-${item.key}`}
                  role="option"
                  aria-selected={i === active}
                  selected={i === active}
                  data-index={i}
                  data-testid="command-bar-item"
                  data-key={item.key}
                  onMouseMove={() => setActive(i)}
                  onClick={() => item.run()}
                  tabIndex={-1}
                >
                  <ListItemIcon sx={{ minWidth: 34 }}>{item.icon}</ListItemIcon>
                  <ListItemText
                    primary={item.label}
                    secondary={item.secondary}
                    slotProps={{ primary: { noWrap: true }, secondary: { noWrap: true } }}
                  />
                </ListItemButton>
              </Box>
            );
          })}
        </List>
        <Typography
          variant="caption"
          color="text.secondary"
          sx={{ px: 2, py: 1, borderTop: 1, borderColor: 'divider' }}
        >
          {t('macros:commandBar.hint')}
        </Typography>
      </Dialog>
      <ShortcutsSheet open={help} onClose={() => setHelp(false)} />
    </>
  );
}

const SHORTCUTS: [string[], string][] = [
  [['Ctrl+K', '⌘+K'], 'commandBar'],
  [['J', 'Alt+↓'], 'next'],
  [['K', 'Alt+↑'], 'previous'],
  [['A'], 'accept'],
  [['E', 'Ctrl+Shift+E'], 'resolve'],
  [['T'], 'transfer'],
  [['R', '/'], 'composer'],
  [['/'], 'quickReply'],
  [['N'], 'note'],
  [['Esc'], 'close'],
  [['?'], 'help'],
];

/** "?": every shortcut, in the interface language. */
export function ShortcutsSheet({ open, onClose }: { open: boolean; onClose(): void }) {
  const { t } = useMacrosT();
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="xs" data-testid="shortcuts-sheet">
      <DialogTitle>{t('macros:shortcuts.title')}</DialogTitle>
      <DialogContent sx={{ px: { xs: 1, sm: 3 } }}>
        <Table size="small">
          <TableBody>
            {SHORTCUTS.map(([keys, what]) => (
              <TableRow key={what}>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  {keys.map((k, i) => (
                    <Box component="span" key={k}>
                      {i > 0 ? (
                        <Typography
                          component="span"
                          variant="caption"
                          color="text.secondary"
                          sx={{ mx: 0.5 }}
                        >
                          {t('macros:shortcuts.or')}
                        </Typography>
                      ) : null}
                      <Chip size="small" variant="outlined" label={k} sx={{ fontFamily: 'monospace' }} />
                    </Box>
                  ))}
                </TableCell>
                <TableCell>{t(`macros:shortcuts.${what}`)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </DialogContent>
    </Dialog>
  );
}
