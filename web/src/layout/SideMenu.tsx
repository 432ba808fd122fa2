import { useState, type ComponentType } from 'react';
import { Link as RouterLink, useLocation } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import {
  Box,
  Collapse,
  Divider,
  List,
  ListItemButton,
  Badge,
  ListItemIcon,
  ListItemText,
  ListSubheader,
  Tooltip,
  Typography,
} from '@mui/material';
import { alpha } from '@mui/material/styles';
import type { SvgIconProps, Theme } from '@mui/material';
import ExpandLessIcon from '@mui/icons-material/ExpandLess';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import SpaceDashboardOutlinedIcon from '@mui/icons-material/SpaceDashboardOutlined';
import SensorsOutlinedIcon from '@mui/icons-material/SensorsOutlined';
import WhatsAppIcon from '@mui/icons-material/WhatsApp';
import ViewKanbanOutlinedIcon from '@mui/icons-material/ViewKanbanOutlined';
import BoltOutlinedIcon from '@mui/icons-material/BoltOutlined';
import ContactPhoneOutlinedIcon from '@mui/icons-material/ContactPhoneOutlined';
import EventOutlinedIcon from '@mui/icons-material/EventOutlined';
import LocalOfferOutlinedIcon from '@mui/icons-material/LocalOfferOutlined';
import ForumOutlinedIcon from '@mui/icons-material/ForumOutlined';
import HelpOutlineOutlinedIcon from '@mui/icons-material/HelpOutlineOutlined';
import ChecklistOutlinedIcon from '@mui/icons-material/ChecklistOutlined';
import CampaignOutlinedIcon from '@mui/icons-material/CampaignOutlined';
import ListAltOutlinedIcon from '@mui/icons-material/ListAltOutlined';
import PeopleOutlinedIcon from '@mui/icons-material/PeopleOutlined';
import TuneOutlinedIcon from '@mui/icons-material/TuneOutlined';
import AnnouncementOutlinedIcon from '@mui/icons-material/AnnouncementOutlined';
import AutoAwesomeOutlinedIcon from '@mui/icons-material/AutoAwesomeOutlined';
import HubOutlinedIcon from '@mui/icons-material/HubOutlined';
import SyncAltOutlinedIcon from '@mui/icons-material/SyncAltOutlined';
import FolderOutlinedIcon from '@mui/icons-material/FolderOutlined';
import AccountTreeOutlinedIcon from '@mui/icons-material/AccountTreeOutlined';
import TimerOutlinedIcon from '@mui/icons-material/TimerOutlined';
import DynamicFormOutlinedIcon from '@mui/icons-material/DynamicFormOutlined';
import TaskAltOutlinedIcon from '@mui/icons-material/TaskAltOutlined';
import PeopleAltOutlinedIcon from '@mui/icons-material/PeopleAltOutlined';
import ApiOutlinedIcon from '@mui/icons-material/ApiOutlined';
import FactCheckOutlinedIcon from '@mui/icons-material/FactCheckOutlined';
import SettingsOutlinedIcon from '@mui/icons-material/SettingsOutlined';
import ReceiptLongOutlinedIcon from '@mui/icons-material/ReceiptLongOutlined';
import SchemaOutlinedIcon from '@mui/icons-material/SchemaOutlined';
import AutoFixHighOutlinedIcon from '@mui/icons-material/AutoFixHighOutlined';
import { useTranslation } from 'react-i18next';
import { PLAN_FLAGS, type PlanFlag } from '@recado/contracts';
import { api } from '../api/client.js';
import { useAuth } from '../app/auth.js';
import { useConnectionsWarning } from './useConnectionsWarning.js';
import { Logo } from '../components/Logo.js';
import { isActive, menuEntries, type MenuEntry } from './menu-entries.js';
import { companyUsesCampaigns } from '../pages/campaign-settings/campaigns-access.js';
import { useUnreadChats } from '../api/chats.js';

const ICONS: Record<string, ComponentType<SvgIconProps>> = {
  dashboard: SpaceDashboardOutlinedIcon,
  live: SensorsOutlinedIcon,
  tickets: WhatsAppIcon,
  kanban: ViewKanbanOutlinedIcon,
  quickMessages: BoltOutlinedIcon,
  macros: AutoFixHighOutlinedIcon,
  contacts: ContactPhoneOutlinedIcon,
  schedules: EventOutlinedIcon,
  tags: LocalOfferOutlinedIcon,
  chats: ForumOutlinedIcon,
  helps: HelpOutlineOutlinedIcon,
  todolist: ChecklistOutlinedIcon,
  campaigns: CampaignOutlinedIcon,
  campaignsList: ListAltOutlinedIcon,
  contactLists: PeopleOutlinedIcon,
  campaignsConfig: TuneOutlinedIcon,
  announcements: AnnouncementOutlinedIcon,
  prompts: AutoAwesomeOutlinedIcon,
  queueIntegration: HubOutlinedIcon,
  connections: SyncAltOutlinedIcon,
  files: FolderOutlinedIcon,
  queues: AccountTreeOutlinedIcon,
  sla: TimerOutlinedIcon,
  customFields: DynamicFormOutlinedIcon,
  closingReasons: TaskAltOutlinedIcon,
  flows: SchemaOutlinedIcon,
  users: PeopleAltOutlinedIcon,
  messagesApi: ApiOutlinedIcon,
  settings: SettingsOutlinedIcon,
  auditLog: FactCheckOutlinedIcon,
  invoices: ReceiptLongOutlinedIcon,
};

/** The local flag that also reveals the campaign entries (docs/product.md#screens). */
const hasCshow = () => {
  try {
    return localStorage.getItem('cshow') !== null;
  } catch {
    return false;
  }
};

interface ItemProps {
  entry: MenuEntry;
  collapsed: boolean;
  nested?: boolean;
  onNavigate?: () => void;
}

function MenuItemLink({
  entry,
  collapsed,
  nested,
  onNavigate,
  warning = false,
}: ItemProps & { warning?: boolean }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const Icon = ICONS[entry.key] ?? ListAltOutlinedIcon;
  const label = t(`menu.${entry.key}`);
  const selected = isActive(entry, pathname);
  return (
    <Tooltip title={collapsed ? label : ''} placement="right" disableInteractive>
      <ListItemButton
        component={RouterLink}
        to={entry.to}
        selected={selected}
        onClick={onNavigate}
        aria-label={collapsed ? label : undefined}
        aria-current={selected ? 'page' : undefined}
        data-testid={`menu-${entry.key}`}
        sx={itemSx(collapsed, nested)}
      >
        <ListItemIcon sx={iconSx(collapsed)}>
          <Badge
            color={entry.key === 'chats' ? 'error' : 'warning'}
            variant="dot"
            invisible={!warning}
            data-testid={warning ? `menu-${entry.key}-warning` : undefined}
          >
            <Icon fontSize="small" />
          </Badge>
        </ListItemIcon>
        {!collapsed && (
          <ListItemText
            primary={label}
            sx={{ my: 0 }}
            slotProps={{ primary: { noWrap: true, sx: { fontSize: 14, fontWeight: selected ? 600 : 500 } } }}
          />
        )}
      </ListItemButton>
    </Tooltip>
  );
}

const itemSx = (collapsed: boolean, nested?: boolean) => (theme: Theme) => ({
  minHeight: 38,
  py: 0.5,
  mx: 1,
  my: '1px',
  px: collapsed ? 0 : nested ? 2 : 1.5,
  pl: collapsed ? 0 : nested ? 4.5 : 1.5,
  justifyContent: collapsed ? 'center' : 'flex-start',
  borderRadius: 2,
  color: theme.palette.text.secondary,
  '&:hover': { bgcolor: alpha(theme.palette.text.primary, 0.05), color: theme.palette.text.primary },
  '&.Mui-selected': {
    bgcolor: alpha(theme.palette.primary.main, theme.palette.mode === 'light' ? 0.1 : 0.18),
    color: theme.palette.primary.main,
    '& .MuiListItemIcon-root': { color: theme.palette.primary.main },
  },
  '&.Mui-selected:hover': {
    bgcolor: alpha(theme.palette.primary.main, theme.palette.mode === 'light' ? 0.14 : 0.24),
  },
});

const iconSx = (collapsed: boolean) => ({
  minWidth: 0,
  mr: collapsed ? 0 : 1.5,
  color: 'inherit',
  justifyContent: 'center',
});

function MenuGroup({ entry, collapsed, onNavigate }: ItemProps) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const active = isActive(entry, pathname);
  const [expanded, setExpanded] = useState(active);
  const Icon = ICONS[entry.key] ?? ListAltOutlinedIcon;
  const label = t(`menu.${entry.key}`);
  const open = expanded || (collapsed && active);
  return (
    <>
      <Tooltip title={collapsed ? label : ''} placement="right" disableInteractive>
        <ListItemButton
          onClick={() => setExpanded((v) => !v)}
          aria-expanded={open}
          aria-label={collapsed ? label : undefined}
          data-testid={`menu-${entry.key}`}
          sx={(theme) => ({
            ...itemSx(collapsed)(theme),
            ...(active && !open ? { color: theme.palette.primary.main } : {}),
          })}
        >
          <ListItemIcon sx={iconSx(collapsed)}>
            <Icon fontSize="small" />
          </ListItemIcon>
          {!collapsed && (
            <>
              <ListItemText
                primary={label}
                sx={{ my: 0 }}
                slotProps={{ primary: { noWrap: true, sx: { fontSize: 14, fontWeight: 500 } } }}
              />
              {open ? <ExpandLessIcon fontSize="small" /> : <ExpandMoreIcon fontSize="small" />}
            </>
          )}
        </ListItemButton>
      </Tooltip>
      <Collapse in={open} timeout="auto" unmountOnExit>
        <List disablePadding>
          {entry.children!.map((child) => (
            <MenuItemLink
              key={child.key}
              entry={child}
              collapsed={collapsed}
              nested
              onNavigate={onNavigate}
            />
          ))}
        </List>
      </Collapse>
    </>
  );
}

function Entries({
  list,
  collapsed,
  onNavigate,
  warnings = {},
}: {
  list: MenuEntry[];
  collapsed: boolean;
  onNavigate?: () => void;
  warnings?: Partial<Record<string, boolean>>;
}) {
  return list.map((entry) =>
    entry.children ? (
      <MenuGroup key={entry.key} entry={entry} collapsed={collapsed} onNavigate={onNavigate} />
    ) : (
      <MenuItemLink
        key={entry.key}
        entry={entry}
        collapsed={collapsed}
        onNavigate={onNavigate}
        warning={Boolean(warnings[entry.key])}
      />
    ),
  );
}

/** The side menu: entries by profile and plan, the administration group, the version at the bottom. */
export function SideMenu({ collapsed, onNavigate }: { collapsed: boolean; onNavigate?: () => void }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const plan = Object.fromEntries(PLAN_FLAGS.map((f) => [f, Boolean(user?.company.plan[f])])) as Record<
    PlanFlag,
    boolean
  >;
  // The company's campaignsEnabled setting turned off hides campaigns even on a plan that has them.
  plan.useCampaigns = companyUsesCampaigns(user);
  const { main, admin } = menuEntries(user, plan, hasCshow());
  const connectionsWarning = useConnectionsWarning(admin.some((e) => e.key === 'connections'));
  // docs/product.md#screens: a dot on the internal chat entry while the user has unread chat messages.
  const unreadChats = useUnreadChats(main.some((e) => e.key === 'chats'));
  const version = useQuery({
    queryKey: ['version'],
    queryFn: () => api.get<{ version: string }>('/version'),
    staleTime: Infinity,
  });
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', height: '100%' }}>
      <Box
        sx={{
          height: 64,
          flexShrink: 0,
          display: 'flex',
          alignItems: 'center',
          justifyContent: collapsed ? 'center' : 'flex-start',
          px: collapsed ? 0 : 2.5,
        }}
      >
        <Logo size={34} showName={!collapsed} />
      </Box>
      <Box
        component="nav"
        aria-label={t('layout.mainNav')}
        sx={{ flex: 1, overflowY: 'auto', overflowX: 'hidden', pb: 1 }}
      >
        <List disablePadding>
          <Entries
            list={main}
            collapsed={collapsed}
            onNavigate={onNavigate}
            warnings={{ chats: unreadChats > 0 }}
          />
        </List>
        {admin.length > 0 && (
          <List
            disablePadding
            subheader={
              collapsed ? (
                <Divider sx={{ my: 1, mx: 2 }} />
              ) : (
                <ListSubheader
                  disableSticky
                  sx={{
                    bgcolor: 'transparent',
                    lineHeight: '36px',
                    mt: 1,
                    px: 2.5,
                    fontSize: 11,
                    fontWeight: 700,
                    letterSpacing: '0.08em',
                    textTransform: 'uppercase',
                  }}
                >
                  {t('menu.administration')}
                </ListSubheader>
              )
            }
          >
            <Entries
              list={admin}
              collapsed={collapsed}
              onNavigate={onNavigate}
              warnings={{ connections: connectionsWarning }}
            />
          </List>
        )}
      </Box>
      {!collapsed && version.data?.version && (
        <Box sx={{ px: 2.5, py: 1.5, borderTop: 1, borderColor: 'divider' }}>
          <Typography variant="caption" color="text.secondary" data-testid="app-version">
            {t('layout.version', { version: version.data.version })}
          </Typography>
        </Box>
      )}
    </Box>
  );
}
