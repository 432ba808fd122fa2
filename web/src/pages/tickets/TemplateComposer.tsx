import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert, Box, Button, CircularProgress, MenuItem, TextField, Typography } from '@mui/material';
import SendIcon from '@mui/icons-material/Send';
import { renderTemplate, templateNeeds, type MessageTemplate, type TicketView } from '@recado/contracts';
import { useSendTemplate, useTemplates } from '../../api/templates.js';
import { WhatsAppText } from '../../components/WhatsAppText.js';
import { useToast } from '../../app/useToast.js';

/**
 * The composer of a Cloud API ticket outside Meta's 24-hour window (docs/cloud-api.md): it says why free
 * text is closed and offers the connection's approved templates only, with a field for each variable and
 * a preview of the message as WhatsApp will show it.
 */
export function TemplateComposer({ ticket, onSent }: { ticket: TicketView; onSent(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const templates = useTemplates(ticket.whatsappId, true);
  const send = useSendTemplate(ticket.id);
  const [key, setKey] = useState('');
  const [values, setValues] = useState<string[]>([]);
  const [header, setHeader] = useState('');
  const [media, setMedia] = useState('');
  const list = templates.data ?? [];
  const keyOf = (x: MessageTemplate) => `${x.name}|${x.language}`;
  const chosen = list.find((x) => keyOf(x) === key);
  const needs = useMemo(
    () => (chosen ? templateNeeds(chosen.components) : { body: 0, header: 0, headerMedia: null }),
    [chosen],
  );
  const variables = Array.from({ length: needs.body }, (_, i) => values[i] ?? '');
  const ready =
    Boolean(chosen) &&
    variables.every((v) => v.trim()) &&
    (!needs.header || header.trim()) &&
    (!needs.headerMedia || /^https?:\/\/\S+$/.test(media.trim()));
  const preview = chosen
    ? renderTemplate(chosen.components, {
        variables: variables.map((v) => v.trim()),
        headerVariables: needs.header && header.trim() ? [header.trim()] : [],
      })
    : '';

  const submit = () => {
    if (!chosen || !ready) return;
    send.mutate(
      {
        name: chosen.name,
        language: chosen.language,
        variables: variables.map((v) => v.trim()),
        headerVariables: needs.header ? [header.trim()] : [],
        ...(needs.headerMedia ? { headerMediaUrl: media.trim() } : {}),
      },
      {
        onSuccess: () => {
          setKey('');
          setValues([]);
          setHeader('');
          setMedia('');
          onSent();
        },
        onError: (err) => toast.error(err),
      },
    );
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
        {t('templates.window.notice')}
      </Alert>
      {templates.isLoading ? (
        <CircularProgress size={20} sx={{ alignSelf: 'center' }} />
      ) : !list.length ? (
        <Typography variant="body2" color="text.secondary" data-testid="templates-none">
          {t('templates.window.none')}
        </Typography>
      ) : (
        <>
          <TextField
            select
            size="small"
            label={t('templates.picker.label')}
            value={key}
            onChange={(e) => {
              setKey(e.target.value);
              setValues([]);
              setHeader('');
              setMedia('');
            }}
            slotProps={{ htmlInput: { 'data-testid': 'template-select' } }}
          >
            {list.map((x) => (
              <MenuItem key={keyOf(x)} value={keyOf(x)}>
                {x.name} · {x.language}
              </MenuItem>
            ))}
          </TextField>
          {needs.header ? (
            <TextField
              size="small"
              label={t('templates.picker.header')}
              value={header}
              onChange={(e) => setHeader(e.target.value)}
              slotProps={{ htmlInput: { maxLength: 60 } }}
            />
          ) : null}
          {needs.headerMedia ? (
            <TextField
              size="small"
              label={t(`templates.picker.media.${needs.headerMedia}`)}
              placeholder="https://"
              value={media}
              onChange={(e) => setMedia(e.target.value)}
              helperText={t('templates.picker.mediaHelp')}
            />
          ) : null}
          {variables.map((v, i) => (
            <TextField
              key={i}
              size="small"
              label={t('templates.picker.variable', { n: i + 1 })}
              value={v}
              onChange={(e) => {
                const next = [...variables];
                next[i] = e.target.value;
                setValues(next);
              }}
              slotProps={{ htmlInput: { maxLength: 1024, 'data-testid': `template-var-${i + 1}` } }}
            />
          ))}
          {chosen ? (
            <Box>
              <Typography variant="caption" color="text.secondary">
                {t('templates.picker.preview')}
              </Typography>
              <Box
                data-testid="template-preview"
                sx={(theme) => ({
                  mt: 0.5,
                  p: 1.25,
                  borderRadius: 2,
                  maxWidth: 420,
                  whiteSpace: 'pre-wrap',
                  wordBreak: 'break-word',
                  fontSize: 14,
                  bgcolor: theme.palette.mode === 'dark' ? '#005c4b' : '#d9fdd3',
                  color: theme.palette.mode === 'dark' ? '#e9edef' : '#111b21',
                })}
              >
                <WhatsAppText text={preview} />
              </Box>
            </Box>
          ) : null}
          <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
            <Button
              variant="contained"
              endIcon={send.isPending ? <CircularProgress size={16} color="inherit" /> : <SendIcon />}
              disabled={!ready || send.isPending}
              onClick={submit}
              data-testid="template-send"
            >
              {t('templates.picker.send')}
            </Button>
          </Box>
        </>
      )}
    </Box>
  );
}
