import { useState } from 'react';
import {
  Box,
  Button,
  Checkbox,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  FormGroup,
  FormLabel,
  IconButton,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import HistoryIcon from '@mui/icons-material/History';
import ReplayIcon from '@mui/icons-material/Replay';
import { useTranslation } from 'react-i18next';
import { WEBHOOK_EVENTS, type Webhook, type WebhookEvent } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import {
  regenerateWebhookSecret,
  revealWebhookSecret,
  useDeliveries,
  useResend,
  useSaveWebhook,
  webhookResource,
} from '../../api/webhooks.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';

function WebhookDialog({ webhook, onClose }: { webhook: Webhook | null; onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const save = useSaveWebhook();
  const [name, setName] = useState(webhook?.name ?? '');
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [events, setEvents] = useState<WebhookEvent[]>(webhook?.events ?? ['message.created']);
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true);
  const [secret, setSecret] = useState<string | null>(null);

  const submit = async () => {
    try {
      const saved = await save.mutateAsync({ id: webhook?.id, input: { name, url, events, enabled } });
      toast.success('webhooks.saved');
      const made = (saved as { secret?: string }).secret;
      if (!webhook && made) setSecret(made);
      else onClose();
    } catch (err) {
      toast.error(err);
    }
  };

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm">
      <DialogTitle>{webhook ? t('webhooks.edit') : t('webhooks.add')}</DialogTitle>
      <DialogContent sx={{ display: 'flex', flexDirection: 'column', gap: 2, pt: '8px !important' }}>
        {secret ? (
          <>
            <Typography>{t('webhooks.secretOnce')}</Typography>
            <TextField
              value={secret}
              label={t('webhooks.secret')}
              slotProps={{ htmlInput: { readOnly: true } }}
            />
          </>
        ) : (
          <>
            <TextField
              size="small"
              label={t('webhooks.name')}
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
            <TextField
              size="small"
              required
              label={t('webhooks.url')}
              value={url}
              placeholder="https://example.com/recado"
              onChange={(e) => setUrl(e.target.value)}
            />
            <Box>
              <FormLabel>{t('webhooks.events')}</FormLabel>
              <FormGroup>
                {WEBHOOK_EVENTS.map((ev) => (
                  <FormControlLabel
                    key={ev}
                    control={
                      <Checkbox
                        size="small"
                        checked={events.includes(ev)}
                        onChange={(e) =>
                          setEvents((list) =>
                            e.target.checked ? [...list, ev] : list.filter((x) => x !== ev),
                          )
                        }
                      />
                    }
                    label={`${ev} — ${t(`webhooks.event.${ev.replace('.', '_')}`)}`}
                  />
                ))}
              </FormGroup>
            </Box>
            <FormControlLabel
              control={<Switch checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />}
              label={t('webhooks.enabled')}
            />
            {webhook && (
              <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
                <Button
                  variant="outlined"
                  onClick={async () => {
                    try {
                      setSecret((await revealWebhookSecret(webhook.id)).secret);
                    } catch (err) {
                      toast.error(err);
                    }
                  }}
                >
                  {t('webhooks.reveal')}
                </Button>
                <Button
                  variant="outlined"
                  color="warning"
                  onClick={async () => {
                    try {
                      setSecret((await regenerateWebhookSecret(webhook.id)).secret);
                      toast.success('webhooks.regenerated');
                    } catch (err) {
                      toast.error(err);
                    }
                  }}
                >
                  {t('webhooks.regenerate')}
                </Button>
              </Box>
            )}
          </>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t(secret ? 'webhooks.close' : 'webhooks.cancel')}</Button>
        {!secret && (
          <Button
            variant="contained"
            onClick={() => void submit()}
            disabled={!url.trim() || !events.length || save.isPending}
          >
            {t('webhooks.save')}
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}

function DeliveryLog({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const log = useDeliveries(webhook.id);
  const resend = useResend(webhook.id);
  const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(i18n.language) : '—');
  const rows = log.data?.deliveries ?? [];
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md">
      <DialogTitle>{t('webhooks.log', { url: webhook.url })}</DialogTitle>
      <DialogContent>
        <TableContainer>
          <Table size="small" aria-label={t('webhooks.logLabel')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('webhooks.col.event')}</TableCell>
                <TableCell>{t('webhooks.col.status')}</TableCell>
                <TableCell>{t('webhooks.col.code')}</TableCell>
                <TableCell>{t('webhooks.col.attempts')}</TableCell>
                <TableCell>{t('webhooks.col.time')}</TableCell>
                <TableCell align="right">{t('webhooks.col.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((d) => (
                <TableRow key={d.id}>
                  <TableCell>{d.event}</TableCell>
                  <TableCell>
                    <Chip
                      size="small"
                      label={t(`webhooks.status.${d.status}`)}
                      color={
                        d.status === 'delivered' ? 'success' : d.status === 'failed' ? 'error' : 'default'
                      }
                    />
                  </TableCell>
                  <TableCell title={d.lastError}>{d.lastStatusCode ?? (d.lastError ? '✕' : '—')}</TableCell>
                  <TableCell>{d.attempts}</TableCell>
                  <TableCell>{when(d.lastAttemptAt ?? d.createdAt)}</TableCell>
                  <TableCell align="right">
                    <Tooltip title={t('webhooks.resend')}>
                      <IconButton
                        size="small"
                        aria-label={t('webhooks.resend')}
                        onClick={async () => {
                          try {
                            await resend.mutateAsync(d.id);
                            toast.success('webhooks.resent');
                          } catch (err) {
                            toast.error(err);
                          }
                        }}
                      >
                        <ReplayIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  </TableCell>
                </TableRow>
              ))}
              <ListStatusRow colSpan={6} loading={log.isLoading} empty={!rows.length} />
            </TableBody>
          </Table>
        </TableContainer>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('webhooks.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}

/** Settings → Webhooks (admins; docs/webhooks.md): where the company's events are sent. */
export function WebhooksTab() {
  const { t } = useTranslation();
  const [viewing, setViewing] = useState<Webhook | null>(null);
  const columns: ResourceColumn<Webhook>[] = [
    {
      header: t('webhooks.url'),
      sx: { wordBreak: 'break-all' },
      cell: (w) => (
        <>
          {w.name && <Typography variant="subtitle2">{w.name}</Typography>}
          {w.url}
        </>
      ),
    },
    {
      header: t('webhooks.events'),
      headSx: { display: { xs: 'none', sm: 'table-cell' } },
      cell: (w) => w.events.join(', '),
    },
    {
      header: t('webhooks.col.status'),
      cell: (w) => (
        <Tooltip title={w.disabledReason}>
          <Chip
            size="small"
            color={w.enabled ? (w.failingSince ? 'warning' : 'success') : 'default'}
            label={t(
              w.enabled
                ? w.failingSince
                  ? 'webhooks.failing'
                  : 'webhooks.active'
                : w.disabledReason
                  ? 'webhooks.autoDisabled'
                  : 'webhooks.inactive',
            )}
          />
        </Tooltip>
      ),
    },
  ];
  return (
    <>
      <ResourceListPage<Webhook>
        embedded
        intro={
          <Typography variant="body2" color="text.secondary">
            {t('webhooks.intro')}
          </Typography>
        }
        resource={webhookResource}
        i18n="webhooks"
        columns={columns}
        search={false}
        testIds={{ list: 'webhooks-list', row: 'webhook-row', add: 'webhook-add' }}
        rowProps={(w) => ({ 'data-id': w.id })}
        extraActions={(w) => (
          <Tooltip title={t('webhooks.logLabel')}>
            <IconButton size="small" aria-label={t('webhooks.logLabel')} onClick={() => setViewing(w)}>
              <HistoryIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        )}
        renderDialog={({ open, record, onClose }) =>
          open ? <WebhookDialog webhook={record} onClose={onClose} /> : null
        }
        deleteTitle={{ value: (w) => w.name || w.url }}
      />
      {viewing && <DeliveryLog webhook={viewing} onClose={() => setViewing(null)} />}
    </>
  );
}
