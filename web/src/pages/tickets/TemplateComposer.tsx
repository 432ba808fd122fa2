import { useTranslation } from 'react-i18next';
import { Alert, Box, Button, CircularProgress } from '@mui/material';
import SendIcon from '@mui/icons-material/Send';
import type { TicketView } from '@recado/contracts';
import { useSendTemplate } from '../../api/templates.js';
import { TemplateFields, useTemplateDraft } from '../../components/templates/TemplateFields.js';
import { useToast } from '../../app/useToast.js';

/**
 * The composer of a Cloud API ticket outside Meta's 24-hour window (docs/cloud-api.md): it says why free
 * text (and quick messages) are closed and offers the connection's approved templates only, with a field
 * for each variable and a preview of the message as WhatsApp will show it.
 */
export function TemplateComposer({ ticket, onSent }: { ticket: TicketView; onSent(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const draft = useTemplateDraft(ticket.whatsappId);
  const send = useSendTemplate(ticket.id);

  const submit = () => {
    if (!draft.input) return;
    send.mutate(draft.input, {
      onSuccess: () => {
        draft.reset();
        onSent();
      },
      onError: (err) => toast.error(err),
    });
  };

  return (
    <Box
      data-testid="template-composer"
      sx={{
        borderTop: 1,
        borderColor: 'divider',
        bgcolor: 'background.paper',
        p: 1.5,
        display: 'flex',
        flexDirection: 'column',
        gap: 1.25,
        maxHeight: '55vh',
        overflowY: 'auto',
      }}
    >
      <Alert severity="info" data-testid="window-notice" sx={{ py: 0 }}>
        {t('templates.window.notice')} {t('templates.window.quickMessages')}
      </Alert>
      <TemplateFields draft={draft} />
      {draft.list.length ? (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
          <Button
            variant="contained"
            endIcon={send.isPending ? <CircularProgress size={16} color="inherit" /> : <SendIcon />}
            disabled={!draft.input || send.isPending}
            onClick={submit}
            data-testid="template-send"
          >
            {t('templates.picker.send')}
          </Button>
        </Box>
      ) : null}
    </Box>
  );
}
