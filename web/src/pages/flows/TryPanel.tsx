import { useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  Divider,
  IconButton,
  InputBase,
  Stack,
  Tooltip,
  Typography,
} from '@mui/material';
import { alpha, useTheme } from '@mui/material/styles';
import CloseIcon from '@mui/icons-material/Close';
import SendIcon from '@mui/icons-material/Send';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import ReplayIcon from '@mui/icons-material/Replay';
import type { FlowRunStatus, FlowTryAnswer } from '@recado/contracts';
import {
  newMessageId,
  useSendAsCustomer,
  useSimulatorConversation,
  useSimulatorRealtime,
} from '../../api/simulator.js';
import { useToast } from '../../app/useToast.js';
import { WhatsAppText } from '../../components/WhatsAppText.js';
import { useFlowT } from './flow-i18n.js';

/** Where the try run is: the node lit on the canvas, its status, and why it failed. */
export interface TryRunState {
  nodeId: string | null;
  status: FlowRunStatus;
  error?: string;
  variables: Record<string, unknown>;
}

/** The simulator conversation of one try: messages both ways and the customer's composer. */
function TryChat({ session, ended }: { session: FlowTryAnswer; ended: boolean }) {
  const { t } = useFlowT();
  const theme = useTheme();
  const toast = useToast();
  const conversation = useSimulatorConversation(session.whatsappId, session.contactNumber);
  useSimulatorRealtime(session.whatsappId);
  const send = useSendAsCustomer(session.whatsappId);
  const [text, setText] = useState('');
  const scroller = useRef<HTMLDivElement>(null);
  const messages = conversation.data ?? [];
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [messages.length]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = text.trim();
    if (!body) return;
    setText('');
    send.mutate(
      { id: newMessageId(), from: session.contactNumber, body },
      { onError: (err) => toast.error(err) },
    );
  };
  const mine = theme.palette.mode === 'dark' ? '#005c4b' : '#d9fdd3';
  return (
    <>
      <Box
        ref={scroller}
        data-testid="flow-try-messages"
        sx={{
          flex: 1,
          minHeight: 0,
          overflowY: 'auto',
          p: 1.5,
          display: 'flex',
          flexDirection: 'column',
          gap: 0.75,
          bgcolor: alpha(theme.palette.text.primary, 0.03),
        }}
      >
        {conversation.isLoading ? (
          <CircularProgress size={20} sx={{ alignSelf: 'center' }} aria-label={t('common.loading')} />
        ) : null}
        {messages.map((m) => (
          <Box
            key={m.id}
            data-testid="flow-try-message"
            data-from={m.fromMe ? 'flow' : 'customer'}
            sx={{
              alignSelf: m.fromMe ? 'flex-start' : 'flex-end',
              maxWidth: '85%',
              px: 1.25,
              py: 0.75,
              borderRadius: 2,
              boxShadow: 1,
              bgcolor: m.fromMe ? 'background.paper' : mine,
              whiteSpace: 'pre-wrap',
              wordBreak: 'break-word',
              fontSize: 14,
            }}
          >
            {m.body ? <WhatsAppText text={m.body} /> : <em>{m.mediaName || t('try.file')}</em>}
          </Box>
        ))}
      </Box>
      <Box
        component="form"
        onSubmit={submit}
        sx={{ display: 'flex', gap: 1, p: 1, borderTop: 1, borderColor: 'divider' }}
      >
        <InputBase
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder={ended ? t('try.endedPlaceholder') : t('try.placeholder')}
          sx={{ flex: 1, px: 1.25, borderRadius: 5, bgcolor: alpha(theme.palette.text.primary, 0.06) }}
          inputProps={{
            'data-testid': 'flow-try-input',
            'aria-label': t('try.placeholder'),
            maxLength: 4096,
          }}
        />
        <IconButton
          type="submit"
          color="primary"
          aria-label={t('try.send')}
          data-testid="flow-try-send"
          disabled={!text.trim()}
        >
          <SendIcon />
        </IconButton>
      </Box>
    </>
  );
}

/**
 * Try it: runs the DRAFT in a simulator conversation (saved first when changed); the customer's side is typed
 * here and the run's node lights up on the canvas (the editor follows the socket's `flowTry` events).
 */
export function TryPanel({
  session,
  run,
  nodeName,
  starting,
  onStart,
  onClose,
}: {
  session: FlowTryAnswer | null;
  run: TryRunState | null;
  nodeName(id: string): string;
  starting: boolean;
  onStart(): void;
  onClose(): void;
}) {
  const { t } = useFlowT();
  const ended = Boolean(run && ['completed', 'failed', 'cancelled'].includes(run.status));
  return (
    <Box
      data-testid="flow-try-panel"
      sx={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }}
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 2, py: 1.25 }}>
        <Typography variant="subtitle1" sx={{ fontWeight: 600, flex: 1 }}>
          {t('try.title')}
        </Typography>
        {session ? (
          <Tooltip title={t('try.restart')}>
            <span>
              <IconButton size="small" aria-label={t('try.restart')} onClick={onStart} disabled={starting}>
                <ReplayIcon fontSize="small" />
              </IconButton>
            </span>
          </Tooltip>
        ) : null}
        <Tooltip title={t('common.close')}>
          <IconButton size="small" aria-label={t('common.close')} onClick={onClose}>
            <CloseIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      </Box>
      <Divider />
      {!session ? (
        <Stack spacing={2} sx={{ p: 2 }}>
          <Typography variant="body2" color="text.secondary">
            {t('try.intro')}
          </Typography>
          <Button
            variant="contained"
            startIcon={starting ? <CircularProgress size={16} color="inherit" /> : <PlayArrowIcon />}
            disabled={starting}
            onClick={onStart}
            data-testid="flow-try-start"
          >
            {t('try.start')}
          </Button>
        </Stack>
      ) : (
        <>
          <Box
            sx={{ px: 2, py: 1 }}
            data-testid="flow-try-status"
            data-status={run?.status ?? 'running'}
            data-node={run?.nodeId ?? ''}
          >
            {run?.status === 'failed' ? (
              <Alert severity="error" sx={{ py: 0 }}>
                {t('try.failed', { node: run.nodeId ? nodeName(run.nodeId) : '—', error: run.error ?? '' })}
              </Alert>
            ) : ended ? (
              <Alert severity="success" sx={{ py: 0 }}>
                {t(`try.status.${run!.status}`)}
              </Alert>
            ) : (
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
                <Typography variant="body2" color="text.secondary">
                  {t('try.at')}
                </Typography>
                <Chip size="small" color="primary" label={run?.nodeId ? nodeName(run.nodeId) : '…'} />
                <Typography variant="caption" color="text.secondary">
                  {t(`try.status.${run?.status ?? 'running'}`)}
                </Typography>
              </Stack>
            )}
            {run && Object.keys(run.variables).length ? (
              <Typography
                variant="caption"
                color="text.secondary"
                component="div"
                sx={{ mt: 0.5, wordBreak: 'break-word' }}
                data-testid="flow-try-variables"
              >
                {Object.entries(run.variables)
                  .map(([k, v]) => `${k} = ${typeof v === 'string' ? v : JSON.stringify(v)}`)
                  .join(' · ')}
              </Typography>
            ) : null}
          </Box>
          <Divider />
          <TryChat session={session} ended={ended} />
        </>
      )}
    </Box>
  );
}
