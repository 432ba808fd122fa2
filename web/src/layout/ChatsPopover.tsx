import ChatBubbleOutlineOutlinedIcon from '@mui/icons-material/ChatBubbleOutlineOutlined';
import MarkChatReadOutlinedIcon from '@mui/icons-material/MarkChatReadOutlined';
import { useTranslation } from 'react-i18next';
import { TopBarPopover } from './TopBarPopover.js';
import { usePlanFlag } from '../app/guards.js';

/** Internal chats with unread messages; the list arrives with the internal chat module. */
export function ChatsPopover() {
  const { t } = useTranslation();
  // Issue 21 §2: a plan without the internal chat shows no icon for it.
  if (!usePlanFlag('useInternalChat')) return null;
  return (
    <TopBarPopover
      label={t('layout.chats')}
      testId="chats-button"
      icon={<ChatBubbleOutlineOutlinedIcon fontSize="small" />}
      emptyIcon={<MarkChatReadOutlinedIcon fontSize="inherit" />}
      emptyText={t('layout.noChats')}
    />
  );
}
