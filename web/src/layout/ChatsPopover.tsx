import ChatBubbleOutlineOutlinedIcon from '@mui/icons-material/ChatBubbleOutlineOutlined';
import MarkChatReadOutlinedIcon from '@mui/icons-material/MarkChatReadOutlined';
import { useTranslation } from 'react-i18next';
import { TopBarPopover } from './TopBarPopover.js';

/** Internal chats with unread messages; the list arrives with the internal chat module. */
export function ChatsPopover() {
  const { t } = useTranslation();
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
