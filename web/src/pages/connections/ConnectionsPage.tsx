import { useCallback, useState } from 'react';
import { useNavigate } from 'react-router';
import {
  Box,
  Button,
  Chip,
  IconButton,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ArticleOutlinedIcon from '@mui/icons-material/ArticleOutlined';
import CircularProgress from '@mui/material/CircularProgress';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import PhoneIphoneIcon from '@mui/icons-material/PhoneIphone';
import PowerSettingsNewIcon from '@mui/icons-material/PowerSettingsNew';
import QrCode2Icon from '@mui/icons-material/QrCode2';
import ReplayIcon from '@mui/icons-material/Replay';
import StarIcon from '@mui/icons-material/Star';
import { useTranslation } from 'react-i18next';
import { can, formatNumber, type Whatsapp } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import {
  useDeleteWhatsapp,
  useInboundFailures,
  useSessionAction,
  useWhatsapps,
  useWhatsappsRealtime,
  type SessionAction,
} from '../../api/whatsapps.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { ChannelChip, ConnectionStatus } from './ConnectionStatus.js';
import { ConnectionDialog } from './ConnectionDialog.js';
import { QrCodeDialog } from './QrCodeDialog.js';
import { TemplatesDialog } from './TemplatesDialog.js';
import { ConnectionHealthButton } from './health/ConnectionHealthButton.js';
import { OutOfHoursWarning } from '../../components/OutOfHoursWarning.js';

import { formatDateTime } from '../../i18n/format.js';
import { RecoveryLine } from './RecoveryLine.js';

/** Admins: customer messages this connection gave up on (shown only when there are some). */
function InboundFailures({ whatsappId }: { whatsappId: number }) {
  const { t } = useTranslation();
  const failures = useInboundFailures(whatsappId).data?.failures ?? [];
  if (!failures.length) return null;
  const help = (
    <Box>
      <Typography variant="caption" sx={{ display: 'block', mb: 0.5 }}>
        {t('connections.inboundFailuresHelp')}
      </Typography>
      {failures.slice(0, 5).map((f) => (
        <Typography key={f.id} variant="caption" sx={{ display: 'block' }}>
          {f.sender}: {f.preview || '—'} ({f.error})
        </Typography>
      ))}
    </Box>
  );
  return (
    <Tooltip title={help}>
      <Chip
        size="small"
        color="warning"
        variant="outlined"
        sx={{ mt: 0.5 }}
        label={t('connections.inboundFailures', { count: failures.length })}
        data-testid="inbound-failures"
      />
    </Tooltip>
  );
}

/** The session buttons of docs/product.md#states, by status. */
function SessionButtons({
  whatsapp,
  busy,
  onAction,
  onShowQr,
  onDisconnect,
}: {
  whatsapp: Whatsapp;
  busy: boolean;
  onAction(action: SessionAction): void;
  onShowQr(): void;
  onDisconnect(): void;
}) {
  const { t } = useTranslation();
  const common = {
    size: 'small',
    variant: 'outlined',
    disabled: busy,
    sx: { whiteSpace: 'nowrap' },
  } as const;
  switch (whatsapp.status) {
    case 'DISCONNECTED':
      return (
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1 }}>
          <Button {...common} startIcon={<ReplayIcon />} onClick={() => onAction('start')}>
            {t('connections.buttons.tryAgain')}
          </Button>
          {/* Only a phone session has a QR code to renew. */}
          {whatsapp.channel === 'baileys' ? (
            <Button
              {...common}
              color="secondary"
              startIcon={<QrCode2Icon />}
              onClick={() => onAction('renew')}
            >
              {t('connections.buttons.newQr')}
            </Button>
          ) : null}
        </Box>
      );
    case 'qrcode':
      return (
        <Button {...common} variant="contained" startIcon={<QrCode2Icon />} onClick={onShowQr}>
          {t('connections.buttons.showQr')}
        </Button>
      );
    case 'CONNECTED':
    case 'PAIRING':
    case 'TIMEOUT':
      return (
        <Button {...common} color="error" startIcon={<PowerSettingsNewIcon />} onClick={onDisconnect}>
          {t('connections.buttons.disconnect')}
        </Button>
      );
    case 'OPENING':
      return (
        <Button
          size="small"
          variant="outlined"
          disabled
          sx={{ whiteSpace: 'nowrap' }}
          startIcon={<CircularProgress size={14} color="inherit" />}
        >
          {t('connections.buttons.connecting')}
        </Button>
      );
    default:
      return null;
  }
}

/** Connections of the company (docs/product.md#screens, #states): live status, session buttons, add/edit/delete. */
export default function ConnectionsPage() {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const navigate = useNavigate();
  const list = useWhatsapps();
  useWhatsappsRealtime();
  const session = useSessionAction();
  const remove = useDeleteWhatsapp();
  const canAdd = can(user, 'connections-page:addConnection');
  const canSession = can(user, 'connections-page:actionButtons');
  const canEdit = can(user, 'connections-page:editOrDeleteConnection');

  /** undefined: closed; null: a new connection; else a snapshot of the one being edited. */
  const [editing, setEditing] = useState<Whatsapp | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Whatsapp | null>(null);
  const [disconnecting, setDisconnecting] = useState<Whatsapp | null>(null);
  const [qrFor, setQrFor] = useState<number | null>(null);
  const [templatesOf, setTemplatesOf] = useState<Whatsapp | null>(null);
  const closeQr = useCallback(() => setQrFor(null), []);

  const items = list.data ?? [];
  const hasSimulator = items.some((w) => w.channel === 'simulator');
  const showActions = canEdit || hasSimulator;
  const busyId = session.isPending ? session.variables?.id : undefined;

  const runSession = async (id: number, action: SessionAction) => {
    try {
      await session.mutateAsync({ id, action });
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('connections.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  const columns = 5 + (canSession ? 1 : 0) + (showActions ? 1 : 0);
  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('connections.title')} count={list.data ? items.length : undefined}>
        {canAdd ? (
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing(null)}>
            {t('connections.add')}
          </Button>
        ) : null}
      </PageHeader>

      {canEdit ? <OutOfHoursWarning /> : null}
      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <TableContainer sx={{ maxHeight: { xs: 'calc(100dvh - 200px)', sm: 'calc(100dvh - 170px)' } }}>
          <Table
            stickyHeader
            size="small"
            aria-label={t('connections.title')}
            data-testid="connections-table"
          >
            <TableHead>
              <TableRow sx={{ '& th': { whiteSpace: 'nowrap' } }}>
                <TableCell>{t('connections.columns.name')}</TableCell>
                <TableCell>{t('connections.columns.channel')}</TableCell>
                <TableCell>{t('connections.columns.status')}</TableCell>
                {canSession ? <TableCell>{t('connections.columns.session')}</TableCell> : null}
                <TableCell>{t('connections.columns.lastUpdate')}</TableCell>
                <TableCell align="center">{t('connections.columns.default')}</TableCell>
                {showActions ? <TableCell align="right">{t('common.actions')}</TableCell> : null}
              </TableRow>
            </TableHead>
            <TableBody>
              {items.map((w) => (
                <TableRow key={w.id} hover data-testid="connection-row" data-id={w.id} data-name={w.name}>
                  <TableCell sx={{ minWidth: 140 }}>
                    <Typography variant="body2" sx={{ fontWeight: 500 }}>
                      {w.name}
                    </Typography>
                    {/* A simulator's number is made up: only real numbers are shown. */}
                    {w.number && w.channel !== 'simulator' ? (
                      <Typography
                        variant="caption"
                        color="text.secondary"
                        sx={{ display: 'block', whiteSpace: 'nowrap' }}
                      >
                        {formatNumber(w.number)}
                      </Typography>
                    ) : null}
                  </TableCell>
                  <TableCell>
                    <ChannelChip channel={w.channel} />
                  </TableCell>
                  <TableCell>
                    <ConnectionStatus status={w.status} reason={w.statusReason} />
                    <RecoveryLine recovery={w.recovery} />
                    {canEdit ? <InboundFailures whatsappId={w.id} /> : null}
                  </TableCell>
                  {canSession ? (
                    <TableCell>
                      <SessionButtons
                        whatsapp={w}
                        busy={busyId === w.id}
                        onAction={(action) => void runSession(w.id, action).catch(() => undefined)}
                        onShowQr={() => setQrFor(w.id)}
                        onDisconnect={() => setDisconnecting(w)}
                      />
                    </TableCell>
                  ) : null}
                  <TableCell sx={{ color: 'text.secondary', whiteSpace: 'nowrap' }}>
                    {formatDateTime(w.updatedAt, i18n.language)}
                  </TableCell>
                  <TableCell align="center">
                    {w.isDefault ? (
                      <Tooltip title={t('connections.defaultTooltip')}>
                        <StarIcon
                          fontSize="small"
                          sx={{ color: 'warning.main', verticalAlign: 'middle' }}
                          aria-label={t('connections.defaultTooltip')}
                          data-testid="default-star"
                        />
                      </Tooltip>
                    ) : null}
                  </TableCell>
                  {showActions ? (
                    <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                      {w.channel === 'simulator' ? (
                        <Tooltip title={t('connections.buttons.openSimulator')}>
                          <IconButton
                            size="small"
                            color="secondary"
                            aria-label={t('connections.buttons.openSimulator')}
                            onClick={() => void navigate(`/connections/${w.id}/simulator`)}
                          >
                            <PhoneIphoneIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                      ) : null}
                      {canEdit && w.channel === 'cloud_api' ? (
                        <Tooltip title={t('templates.open')}>
                          <IconButton
                            size="small"
                            color="secondary"
                            aria-label={t('templates.open')}
                            onClick={() => setTemplatesOf(w)}
                          >
                            <ArticleOutlinedIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                      ) : null}
                      {canEdit ? (
                        <>
                          <ConnectionHealthButton whatsapp={w} />
                          <Tooltip title={t('common.edit')}>
                            <IconButton
                              size="small"
                              aria-label={t('common.edit')}
                              onClick={() => setEditing(w)}
                            >
                              <EditOutlinedIcon fontSize="small" />
                            </IconButton>
                          </Tooltip>
                          <Tooltip title={t('common.delete')}>
                            <IconButton
                              size="small"
                              aria-label={t('common.delete')}
                              onClick={() => setDeleting(w)}
                            >
                              <DeleteOutlinedIcon fontSize="small" />
                            </IconButton>
                          </Tooltip>
                        </>
                      ) : null}
                    </TableCell>
                  ) : null}
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={columns}
                loading={list.isLoading}
                empty={!list.isLoading && items.length === 0}
              />
            </TableBody>
          </Table>
        </TableContainer>
      </Paper>

      {templatesOf ? <TemplatesDialog whatsapp={templatesOf} onClose={() => setTemplatesOf(null)} /> : null}
      {canAdd || canEdit ? (
        <ConnectionDialog
          open={editing !== undefined}
          whatsapp={editing ?? null}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
      <QrCodeDialog whatsappId={qrFor} onClose={closeQr} />
      <ConfirmationDialog
        open={disconnecting !== null}
        title={t('connections.disconnectTitle', { name: disconnecting?.name ?? '' })}
        onClose={() => setDisconnecting(null)}
        onConfirm={() => (disconnecting ? runSession(disconnecting.id, 'stop') : undefined)}
        confirmLabel={t('connections.buttons.disconnect')}
      >
        {t('connections.disconnectMessage')}
      </ConfirmationDialog>
      <ConfirmationDialog
        open={deleting !== null}
        title={t('connections.deleteTitle', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {t('connections.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
