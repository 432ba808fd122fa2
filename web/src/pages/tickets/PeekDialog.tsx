import { Box, Chip, Dialog, DialogTitle, IconButton, Tooltip, Typography } from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';
import VisibilityOutlinedIcon from '@mui/icons-material/VisibilityOutlined';
import { useTranslation } from 'react-i18next';
import { formatNumber, type TicketView } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useChatBox } from '../../api/messages.js';
import { MessageList } from './MessageList.js';
import { TicketAvatar, contactLabel } from './TicketList.js';

/** Admins' read-only look at a ticket, without opening (or accepting) it. */
export function PeekDialog({ ticket, onClose }: { ticket: TicketView; onClose(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  useChatBox(ticket.id);
  return (
    <Dialog
      open
      onClose={onClose}
      fullWidth
      maxWidth="md"
      aria-labelledby="peek-title"
      slotProps={{ paper: { sx: { height: '85vh' }, 'data-testid': 'peek-dialog' } as object }}
    >
      <DialogTitle id="peek-title" sx={{ display: 'flex', alignItems: 'center', gap: 1.5, py: 1.25, pr: 1 }}>
        <TicketAvatar contact={ticket.contact} size={40} />
        <Box sx={{ minWidth: 0, flex: 1 }}>
          <Typography noWrap sx={{ fontWeight: 600 }}>
            {contactLabel(ticket.contact)}
          </Typography>
          <Typography variant="caption" color="text.secondary" noWrap component="div">
            {[formatNumber(ticket.contact.number), ticket.user?.name, ticket.queue?.name]
              .filter(Boolean)
              .join(' · ')}
          </Typography>
        </Box>
        <Chip
          size="small"
          icon={<VisibilityOutlinedIcon />}
          label={t('tickets.peek.readOnly')}
          variant="outlined"
        />
        <Chip size="small" label={t(`tickets.status.${ticket.status}`)} />
        <Tooltip title={t('common.close')}>
          <IconButton onClick={onClose} aria-label={t('common.close')}>
            <CloseIcon />
          </IconButton>
        </Tooltip>
      </DialogTitle>
      <Box sx={{ flex: 1, minHeight: 0, borderTop: 1, borderColor: 'divider' }}>
        <MessageList
          ticket={ticket}
          readOnly
          onForbidden={() => {
            toast.warning('tickets.unauthorized');
            onClose();
          }}
        />
      </Box>
    </Dialog>
  );
}
