import { useMemo, useState, type FormEvent } from 'react';
import {
  Alert,
  Box,
  Button,
  IconButton,
  Link,
  MenuItem,
  Paper,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import { Link as RouterLink } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useWhatsapps } from '../../api/whatsapps.js';
import { sendWithToken, useConnectionToken, useRegenerateToken } from '../../api/external-api.js';
import { PageHeader } from '../../components/PageHeader.js';

const origin = () => window.location.origin;

function CodeBlock({ code, label }: { code: string; label: string }) {
  const { t } = useTranslation();
  const toast = useToast();
  return (
    <Box sx={{ position: 'relative' }}>
      <Box
        component="pre"
        aria-label={label}
        sx={{
          m: 0,
          p: 1.5,
          pr: 6,
          borderRadius: 1,
          bgcolor: 'action.hover',
          fontSize: 13,
          overflowX: 'auto',
          whiteSpace: 'pre',
        }}
      >
        {code}
      </Box>
      <Tooltip title={t('messagesApi.copy')}>
        <IconButton
          size="small"
          aria-label={t('messagesApi.copy')}
          sx={{ position: 'absolute', top: 4, right: 4 }}
          onClick={() => {
            void navigator.clipboard?.writeText(code).then(() => toast.success('messagesApi.copied'));
          }}
        >
          <ContentCopyIcon fontSize="small" />
        </IconButton>
      </Tooltip>
    </Box>
  );
}

/**
 * /messages-api (docs/external-api.md): the two kinds of token, the send call's documentation and its two test
 * forms (text; media).
 */
export default function MessagesApiPage() {
  const { t } = useTranslation();
  const toast = useToast();
  const { user } = useAuth();
  const admin = user?.profile === 'admin' || Boolean(user?.super);
  const connections = useWhatsapps(admin);
  const [connectionId, setConnectionId] = useState<number | ''>('');
  const revealed = useConnectionToken(connectionId || null, admin);
  const regenerate = useRegenerateToken();
  const [token, setToken] = useState('');
  const [number, setNumber] = useState('');
  const [body, setBody] = useState('');
  const [mediaNumber, setMediaNumber] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [sending, setSending] = useState<'text' | 'media' | null>(null);

  const current = token || revealed.data?.token || '';
  const shownToken = current || '<TOKEN>';
  const url = `${origin()}/api/messages/send`;
  const curlText = useMemo(
    () =>
      `curl -X POST "${url}" \\\n  -H "Authorization: Bearer ${shownToken}" \\\n  -H "Content-Type: application/json" \\\n  -d '{"number": "5511999998888", "body": "${t('messagesApi.exampleText')}", "externalKey": "${t('messagesApi.exampleKey')}"}'`,
    [url, shownToken, t],
  );
  const curlMedia = `curl -X POST "${url}" \\\n  -H "Authorization: Bearer ${shownToken}" \\\n  -F number=5511999998888 \\\n  -F body="${t('messagesApi.exampleCaption')}" \\\n  -F medias=@${t('messagesApi.exampleFile')}`;

  const send = async (e: FormEvent, kind: 'text' | 'media') => {
    e.preventDefault();
    setSending(kind);
    try {
      let answer;
      if (kind === 'text') answer = await sendWithToken(current, { number, body });
      else {
        const form = new FormData();
        form.set('number', mediaNumber);
        form.set('body', '');
        for (const f of files) form.append('medias', f);
        answer = await sendWithToken(current, form);
      }
      toast.success('messagesApi.sent', { ticketId: answer.ticketId });
      if (kind === 'text') setBody('');
      else setFiles([]);
    } catch (err) {
      toast.error(err);
    } finally {
      setSending(null);
    }
  };

  const textReady = Boolean(current && number.trim() && body.trim());
  const mediaReady = Boolean(current && mediaNumber.trim() && files.length);

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 1000 }}>
      <PageHeader title={t('messagesApi.title')} />
      <Paper
        variant="outlined"
        data-testid="api-token-kinds"
        sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 1 }}
      >
        <Typography variant="h6" component="h2">
          {t('messagesApi.kindsTitle')}
        </Typography>
        <Typography>{t('messagesApi.kindConnection')}</Typography>
        <Typography>{t('messagesApi.kindPersonal')}</Typography>
        <Typography>
          <Link component={RouterLink} to="/tokens" data-testid="api-tokens-link">
            {t('messagesApi.manageTokens')}
          </Link>
          {' · '}
          <Link href="/api/docs" target="_blank" rel="noopener">
            {t('messagesApi.apiDocs')}
          </Link>
        </Typography>
      </Paper>
      <Paper
        variant="outlined"
        sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2 }}
      >
        <Typography variant="h6" component="h2">
          {t('messagesApi.docsTitle')}
        </Typography>
        <Typography>{t('messagesApi.intro')}</Typography>
        <Typography variant="subtitle2">{t('messagesApi.textTitle')}</Typography>
        <CodeBlock code={curlText} label={t('messagesApi.textTitle')} />
        <Typography variant="subtitle2">{t('messagesApi.mediaTitle')}</Typography>
        <CodeBlock code={curlMedia} label={t('messagesApi.mediaTitle')} />
        <Typography variant="body2" color="text.secondary">
          {t('messagesApi.notes')}
        </Typography>
      </Paper>

      <Paper
        variant="outlined"
        sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2 }}
      >
        <Typography variant="h6" component="h2">
          {t('messagesApi.tokenTitle')}
        </Typography>
        {admin && (
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ alignItems: { sm: 'center' } }}>
            <TextField
              select
              size="small"
              label={t('messagesApi.connection')}
              value={connectionId}
              onChange={(e) => {
                setConnectionId(Number(e.target.value));
                setToken('');
              }}
              sx={{ minWidth: 220 }}
            >
              {(connections.data ?? []).map((w) => (
                <MenuItem key={w.id} value={w.id}>
                  {w.name}
                </MenuItem>
              ))}
            </TextField>
            <Button
              variant="outlined"
              startIcon={<AutorenewIcon />}
              disabled={!connectionId || regenerate.isPending}
              onClick={async () => {
                try {
                  await regenerate.mutateAsync(Number(connectionId));
                  setToken('');
                  toast.success('messagesApi.regenerated');
                } catch (err) {
                  toast.error(err);
                }
              }}
            >
              {t('messagesApi.regenerate')}
            </Button>
          </Stack>
        )}
        {admin && connectionId !== '' && revealed.data && !revealed.data.token && (
          <Alert severity="info">{t('messagesApi.hiddenToken')}</Alert>
        )}
        <TextField
          size="small"
          label={t('messagesApi.token')}
          value={current}
          onChange={(e) => setToken(e.target.value)}
          helperText={t('messagesApi.tokenHelp')}
          slotProps={{ htmlInput: { 'data-testid': 'api-token', spellCheck: false } }}
          fullWidth
        />
      </Paper>

      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
        <Paper
          component="form"
          variant="outlined"
          onSubmit={(e) => void send(e, 'text')}
          sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2 }}
        >
          <Typography variant="h6" component="h2">
            {t('messagesApi.testText')}
          </Typography>
          <TextField
            size="small"
            required
            label={t('messagesApi.number')}
            value={number}
            onChange={(e) => setNumber(e.target.value)}
            slotProps={{ htmlInput: { inputMode: 'tel', 'data-testid': 'text-number' } }}
          />
          <TextField
            size="small"
            required
            multiline
            minRows={3}
            label={t('messagesApi.body')}
            value={body}
            onChange={(e) => setBody(e.target.value)}
            slotProps={{ htmlInput: { 'data-testid': 'text-body' } }}
          />
          <Button type="submit" variant="contained" disabled={!textReady || sending !== null}>
            {t('messagesApi.send')}
          </Button>
        </Paper>
        <Paper
          component="form"
          variant="outlined"
          onSubmit={(e) => void send(e, 'media')}
          sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2 }}
        >
          <Typography variant="h6" component="h2">
            {t('messagesApi.testMedia')}
          </Typography>
          <TextField
            size="small"
            required
            label={t('messagesApi.number')}
            value={mediaNumber}
            onChange={(e) => setMediaNumber(e.target.value)}
            slotProps={{ htmlInput: { inputMode: 'tel' } }}
          />
          <Button variant="outlined" component="label">
            {files.length
              ? t('messagesApi.filesChosen', { count: files.length })
              : t('messagesApi.chooseFile')}
            <input hidden type="file" multiple onChange={(e) => setFiles(Array.from(e.target.files ?? []))} />
          </Button>
          <Button type="submit" variant="contained" disabled={!mediaReady || sending !== null}>
            {t('messagesApi.send')}
          </Button>
        </Paper>
      </Box>
    </Box>
  );
}
