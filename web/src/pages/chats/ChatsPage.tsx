import { useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import {
  Badge,
  Box,
  Button,
  CircularProgress,
  List,
  ListItemButton,
  ListItemText,
  Paper,
  Tab,
  Tabs,
  Typography,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ForumOutlinedIcon from '@mui/icons-material/ForumOutlined';
import ChatOutlinedIcon from '@mui/icons-material/ChatOutlined';
import { useTranslation } from 'react-i18next';
import { unreadsOf, type Chat } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { SearchField } from '../../components/SearchField.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { useDateFormat } from '../../i18n/format.js';
import { chatResource, useChat } from '../../api/chats.js';
import { useCompanyEvent } from '../../realtime/useCompanyEvent.js';
import { useToast } from '../../app/useToast.js';
import { ChatDialog } from './ChatDialog.js';
import { ChatPane } from './ChatPane.js';

const LIST_WIDTH = 340;

function ChatList({ selected, onOpen, onNew }: { selected?: string; onOpen(c: Chat): void; onNew(): void }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const fmt = useDateFormat();
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(search, 500);
  const list = chatResource.useList(debounced);
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }}>
      <Box sx={{ display: 'flex', gap: 1, p: 1.5, alignItems: 'center' }}>
        <SearchField value={search} onChange={setSearch} sx={{ flex: 1, minWidth: 0 }} size="small" />
        <Button variant="contained" startIcon={<AddIcon />} onClick={onNew} data-testid="chat-new">
          {t('chats.newButton')}
        </Button>
      </Box>
      <Box ref={list.scrollRootRef} sx={{ flex: 1, minHeight: 0, overflowY: 'auto' }}>
        <List disablePadding data-testid="chat-list">
          {list.items.map((c) => {
            const unread = user ? unreadsOf(c, user.id) : 0;
            return (
              <ListItemButton
                key={c.id}
                selected={selected === c.uuid || selected === String(c.id)}
                onClick={() => onOpen(c)}
                data-testid="chat-row"
                data-chat-id={c.id}
                sx={{ borderBottom: 1, borderColor: 'divider', gap: 1 }}
              >
                <ListItemText
                  primary={c.title}
                  secondary={c.lastMessage || t('chats.noMessages')}
                  slotProps={{
                    primary: { noWrap: true, sx: { fontWeight: unread ? 700 : 500 } },
                    secondary: { noWrap: true },
                  }}
                />
                <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'flex-end', gap: 0.5 }}>
                  <Typography variant="caption" color="text.secondary" sx={{ whiteSpace: 'nowrap' }}>
                    {fmt.date(c.updatedAt)}
                  </Typography>
                  <Badge
                    color="success"
                    badgeContent={unread}
                    invisible={!unread}
                    max={99}
                    slotProps={{ badge: { 'data-testid': 'chat-row-unread' } as object }}
                    sx={{ mr: 1.25, mb: 0.75 }}
                  />
                </Box>
              </ListItemButton>
            );
          })}
        </List>
        {list.isLoading && (
          <Box sx={{ display: 'flex', justifyContent: 'center', py: 2 }}>
            <CircularProgress size={22} />
          </Box>
        )}
        {!list.isLoading && list.items.length === 0 && (
          <Typography color="text.secondary" sx={{ p: 3, textAlign: 'center' }} data-testid="chat-list-empty">
            {t('chats.empty')}
          </Typography>
        )}
        <Box ref={list.sentinelRef} sx={{ height: 1 }} />
      </Box>
    </Box>
  );
}

function Welcome() {
  const { t } = useTranslation();
  return (
    <Box
      sx={{
        height: '100%',
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        gap: 1.5,
        p: 3,
        textAlign: 'center',
        color: 'text.secondary',
      }}
    >
      <ForumOutlinedIcon sx={{ fontSize: 56, opacity: 0.5 }} />
      <Typography>{t('chats.choose')}</Typography>
    </Box>
  );
}

/**
 * /chats/:id? (docs/internal-chat.md) — the user's chats at the left with a new button, the chosen chat (by uuid)
 * at the right; under the md width the two are tabs (chats, messages).
 */
export default function ChatsPage() {
  const { t } = useTranslation();
  const { id } = useParams();
  const navigate = useNavigate();
  const theme = useTheme();
  const wide = useMediaQuery(theme.breakpoints.up('md'), { noSsr: true });
  const chat = useChat(id);
  const remove = chatResource.useDelete();
  const [dialog, setDialog] = useState<{ chat: Chat | null } | null>(null);
  const [confirm, setConfirm] = useState(false);
  const [choice, setChoice] = useState<{ ref: string | undefined; tab: 'chats' | 'messages' } | null>(null);
  const tab = choice && choice.ref === id ? choice.tab : id ? 'messages' : 'chats';
  const toast = useToast();
  // The chat this screen deletes itself: its own delete event is no news.
  const deleting = useRef<number | null>(null);

  // docs/internal-chat.md: the open chat deleted by its owner (or this user removed from it) is left at once,
  // with a word saying why; a message typed meanwhile is answered 404 and says the same.
  const left = useRef<number | null>(null);
  const leave = (key: 'chats.goneLive' | 'chats.goneOnSend') => {
    if (!chat.data || left.current === chat.data.id) return;
    left.current = chat.data.id;
    toast.warning(key, { title: chat.data?.title ?? '' });
    setChoice({ ref: undefined, tab: 'chats' });
    void navigate('/chats', { replace: true });
  };
  useCompanyEvent('chat', (e) => {
    if (e.action === 'delete' && chat.data && e.chatId === chat.data.id && deleting.current !== e.chatId)
      leave('chats.goneLive');
  });

  const open = (c: Chat) => {
    setChoice({ ref: c.uuid, tab: 'messages' });
    void navigate(`/chats/${c.uuid}`);
  };

  const list = <ChatList selected={id} onOpen={open} onNew={() => setDialog({ chat: null })} />;
  const pane =
    id && chat.data ? (
      <ChatPane
        key={chat.data.id}
        chat={chat.data}
        onEdit={() => setDialog({ chat: chat.data })}
        onDelete={() => setConfirm(true)}
        onGone={() => leave('chats.goneOnSend')}
      />
    ) : id && chat.isLoading ? (
      <Box sx={{ display: 'flex', justifyContent: 'center', pt: 6 }}>
        <CircularProgress size={24} />
      </Box>
    ) : (
      <Welcome />
    );

  const dialogs = (
    <>
      <ChatDialog
        open={Boolean(dialog)}
        chat={dialog?.chat}
        onClose={() => setDialog(null)}
        onSaved={(c) => {
          if (!dialog?.chat) open(c);
        }}
      />
      <ConfirmationDialog
        open={confirm}
        title={t('chats.deleteTitle', { title: chat.data?.title ?? '' })}
        onClose={() => setConfirm(false)}
        onConfirm={async () => {
          if (!chat.data) return;
          deleting.current = chat.data.id;
          await remove.mutateAsync(chat.data.id);
          void navigate('/chats');
        }}
        confirmLabel={t('common.delete')}
      >
        {t('chats.deleteText')}
      </ConfirmationDialog>
    </>
  );

  if (wide)
    return (
      <Box sx={{ display: 'flex', height: '100%', overflow: 'hidden' }} data-testid="chats-page">
        <Paper
          square
          elevation={0}
          sx={{ width: LIST_WIDTH, flexShrink: 0, borderRight: 1, borderColor: 'divider', minHeight: 0 }}
        >
          {list}
        </Paper>
        <Box sx={{ flex: 1, minWidth: 0, minHeight: 0 }}>{pane}</Box>
        {dialogs}
      </Box>
    );

  return (
    <Box
      sx={{ display: 'flex', flexDirection: 'column', height: '100%', overflow: 'hidden' }}
      data-testid="chats-page"
    >
      <Paper square elevation={0} sx={{ borderBottom: 1, borderColor: 'divider' }}>
        <Tabs
          value={tab}
          onChange={(_e, v: 'chats' | 'messages') => setChoice({ ref: id, tab: v })}
          variant="fullWidth"
          aria-label={t('menu.chats')}
        >
          <Tab
            value="chats"
            label={t('chats.tabChats')}
            icon={<ForumOutlinedIcon fontSize="small" />}
            iconPosition="start"
            sx={{ minHeight: 48 }}
          />
          <Tab
            value="messages"
            label={t('chats.tabMessages')}
            icon={<ChatOutlinedIcon fontSize="small" />}
            iconPosition="start"
            sx={{ minHeight: 48 }}
          />
        </Tabs>
      </Paper>
      <Paper square elevation={0} sx={{ flex: 1, minHeight: 0, display: tab === 'chats' ? 'block' : 'none' }}>
        {list}
      </Paper>
      <Box sx={{ flex: 1, minHeight: 0, display: tab === 'messages' ? 'block' : 'none' }}>{pane}</Box>
      {dialogs}
    </Box>
  );
}
