import { useNavigate } from 'react-router';
import { Badge, Box, List, ListItemButton, ListItemText, Typography } from '@mui/material';
import ChatBubbleOutlineOutlinedIcon from '@mui/icons-material/ChatBubbleOutlineOutlined';
import MarkChatReadOutlinedIcon from '@mui/icons-material/MarkChatReadOutlined';
import { useTranslation } from 'react-i18next';
import { unreadsOf } from '@recado/contracts';
import { PopoverEmpty, TopBarPopover } from './TopBarPopover.js';
import { usePlanFlag } from '../app/guards.js';
import { useAuth } from '../app/auth.js';
import { useChatsRealtime, useLatestChats, useUnreadChats } from '../api/chats.js';
import { useDateFormat } from '../i18n/format.js';

/** How many of the latest chats the popover lists. */
const LATEST = 8;

/** The top bar's internal chats: the latest chats (live), unread ones in bold with their count. */
export function ChatsPopover() {
  const enabled = usePlanFlag('useInternalChat');
  // Issue 21 §2: a plan without the internal chat shows no icon for it.
  if (!enabled) return null;
  return <ChatsPopoverButton />;
}

function ChatsPopoverButton() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const navigate = useNavigate();
  const fmt = useDateFormat();
  // The one place the chat events are followed (the top bar is always there): lists, messages, the dot.
  useChatsRealtime();
  const unreadChats = useUnreadChats();
  const latest = useLatestChats();
  const chats = latest.items.slice(0, LATEST);
  return (
    <TopBarPopover
      label={t('layout.chats')}
      testId="chats-button"
      icon={<ChatBubbleOutlineOutlinedIcon fontSize="small" />}
      emptyIcon={<MarkChatReadOutlinedIcon fontSize="inherit" />}
      emptyText={t('layout.noChats')}
      badge={unreadChats}
      buttonLabel={t('chats.popoverButton', { count: unreadChats })}
    >
      {(close) =>
        chats.length === 0 ? (
          <PopoverEmpty icon={<MarkChatReadOutlinedIcon fontSize="inherit" />} text={t('layout.noChats')} />
        ) : (
          <List disablePadding data-testid="chats-popover-list" sx={{ maxHeight: 420, overflowY: 'auto' }}>
            {chats.map((c) => {
              const unread = user ? unreadsOf(c, user.id) : 0;
              return (
                <ListItemButton
                  key={c.id}
                  data-testid="chats-popover-row"
                  onClick={() => {
                    close();
                    void navigate(`/chats/${c.uuid}`);
                  }}
                  sx={{ gap: 1, borderBottom: 1, borderColor: 'divider' }}
                >
                  <ListItemText
                    primary={c.title}
                    secondary={c.lastMessage || t('chats.noMessages')}
                    slotProps={{
                      primary: { noWrap: true, sx: { fontWeight: unread ? 700 : 500 } },
                      secondary: { noWrap: true },
                    }}
                  />
                  <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'flex-end', gap: 0.75 }}>
                    <Typography variant="caption" color="text.secondary" sx={{ whiteSpace: 'nowrap' }}>
                      {fmt.time(c.updatedAt)}
                    </Typography>
                    <Badge
                      color="success"
                      badgeContent={unread}
                      invisible={!unread}
                      max={99}
                      sx={{ mr: 1.25 }}
                    />
                  </Box>
                </ListItemButton>
              );
            })}
          </List>
        )
      }
    </TopBarPopover>
  );
}
