import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import {
  Alert,
  Avatar,
  Box,
  Button,
  Chip,
  CircularProgress,
  IconButton,
  InputBase,
  List,
  ListItemAvatar,
  ListItemButton,
  ListItemText,
  Paper,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useTheme } from '@mui/material/styles';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import CloseIcon from '@mui/icons-material/Close';
import PersonAddIcon from '@mui/icons-material/PersonAdd';
import SendIcon from '@mui/icons-material/Send';
import ScienceIcon from '@mui/icons-material/Science';
import { useTranslation } from 'react-i18next';
import { formatNumber, normalizeNumber, onlyDigits } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useWhatsapp, useWhatsappsRealtime } from '../../api/whatsapps.js';
import {
  customerRead,
  newMessageId,
  useSendAsCustomer,
  useSimulatorConversation,
  useSimulatorCustomers,
  useSimulatorRealtime,
  type SimulatorCustomer,
  type SimulatorEvent,
  type SimulatorMessage,
} from '../../api/simulator.js';
import { maskPhone } from '../signup/masks.js';
import { ConnectionStatus } from '../connections/ConnectionStatus.js';
import { MessageBubble, phoneColors } from './MessageBubble.js';
import { WhatsAppText } from '../../components/WhatsAppText.js';
import { ContactAvatar } from '../../components/ContactAvatar.js';
import { formatDate, formatLongDate, formatTime } from '../../i18n/format.js';

/** The media the inbound entry takes (base64 of at most ~16 MB). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** How long the open chat takes to "read" a company message, so ✓✓ can be seen turning blue. */
const READ_DELAY_MS = 1500;

function lastAtLabel(iso: string, lang: string) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const today = new Date().toDateString() === d.toDateString();
  return today ? formatTime(d, lang) : formatDate(d, lang, { short: true });
}

function dayLabel(iso: string, lang: string, t: (k: string) => string) {
  const d = new Date(iso);
  const now = new Date();
  const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
  if (d.toDateString() === now.toDateString()) return t('simulator.today');
  if (d.toDateString() === yesterday.toDateString()) return t('simulator.yesterday');
  return formatLongDate(d, lang);
}

const readAsBase64 = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.readAsDataURL(file);
  });

/** "New customer": a name and a Brazilian number with the (99) 99999-9999 mask. */
function NewCustomerForm({ onCreate }: { onCreate(customer: { name: string; number: string }): void }) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [number, setNumber] = useState('');
  const [error, setError] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const digits = onlyDigits(number);
    if (digits.length < 10 || digits.length > 11) {
      setError(true);
      return;
    }
    onCreate({ name: name.trim(), number: normalizeNumber(digits) });
    setName('');
    setNumber('');
    setError(false);
  };
  return (
    <Box component="form" onSubmit={submit} noValidate data-testid="sim-new-customer" sx={{ p: 1.5 }}>
      <Typography variant="subtitle2" sx={{ mb: 1, display: 'flex', alignItems: 'center', gap: 0.75 }}>
        <PersonAddIcon fontSize="small" color="primary" />
        {t('simulator.newCustomer')}
      </Typography>
      <Stack spacing={1.25}>
        <TextField
          label={t('simulator.name')}
          value={name}
          onChange={(e) => setName(e.target.value)}
          slotProps={{ htmlInput: { maxLength: 100 } }}
        />
        <TextField
          label={t('simulator.number')}
          value={number}
          required
          onChange={(e) => {
            setNumber(maskPhone(e.target.value));
            setError(false);
          }}
          placeholder="(11) 98888-0001"
          error={error}
          helperText={error ? t('simulator.numberInvalid') : undefined}
          slotProps={{ htmlInput: { inputMode: 'tel', maxLength: 15 } }}
        />
        <Button type="submit" variant="contained" size="small">
          {t('simulator.start')}
        </Button>
      </Stack>
    </Box>
  );
}

function CustomerList({
  customers,
  loading,
  selected,
  onSelect,
}: {
  customers: SimulatorCustomer[];
  loading: boolean;
  selected: string | null;
  onSelect(number: string): void;
}) {
  const { t, i18n } = useTranslation();
  if (loading)
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', py: 4 }}>
        <CircularProgress size={24} aria-label={t('common.loading')} />
      </Box>
    );
  if (!customers.length)
    return (
      <Typography color="text.secondary" variant="body2" sx={{ p: 2, textAlign: 'center' }}>
        {t('simulator.noCustomers')}
      </Typography>
    );
  return (
    <List dense disablePadding aria-label={t('simulator.customers')}>
      {customers.map((c) => (
        <ListItemButton
          key={c.number}
          selected={c.number === selected}
          onClick={() => onSelect(c.number)}
          data-testid="sim-customer"
          data-number={c.number}
          sx={{ py: 1, alignItems: 'flex-start' }}
        >
          <ListItemAvatar sx={{ minWidth: 48 }}>
            <ContactAvatar contact={c} size={38} />
          </ListItemAvatar>
          <ListItemText
            primary={
              <Box component="span" sx={{ display: 'flex', justifyContent: 'space-between', gap: 1 }}>
                <Box
                  component="span"
                  sx={{ fontWeight: 500, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}
                >
                  {c.name === c.number ? formatNumber(c.number) : c.name}
                </Box>
                <Typography component="span" variant="caption" color="text.secondary" sx={{ flexShrink: 0 }}>
                  {c.lastMessage || c.lastMediaType ? lastAtLabel(c.lastAt, i18n.language) : ''}
                </Typography>
              </Box>
            }
            secondary={
              <>
                <Box component="span" sx={{ display: 'block' }}>
                  {formatNumber(c.number)}
                </Box>
                <Box
                  component="span"
                  sx={{
                    display: 'block',
                    overflow: 'hidden',
                    textOverflow: 'ellipsis',
                    whiteSpace: 'nowrap',
                  }}
                >
                  {c.lastMessage ? (
                    <WhatsAppText text={c.lastMessage} />
                  ) : c.lastMediaType ? (
                    // A file without a caption (an API send, a campaign's document): its name, not "no messages".
                    <>
                      <AttachFileIcon fontSize="inherit" sx={{ verticalAlign: 'text-bottom', mr: 0.25 }} />
                      {c.lastMediaName || t('simulator.file')}
                    </>
                  ) : (
                    t('simulator.noMessages')
                  )}
                </Box>
              </>
            }
            slotProps={{ primary: { component: 'div' }, secondary: { component: 'div' } }}
          />
        </ListItemButton>
      ))}
    </List>
  );
}

/** The customer's phone: company header, messages, and the composer with attachments. */
function Phone({
  whatsappId,
  connectionName,
  connected,
  statusLabel,
  customer,
  onBack,
}: {
  whatsappId: number;
  connectionName: string;
  connected: boolean;
  statusLabel: string;
  customer: SimulatorCustomer;
  onBack(): void;
}) {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  const colors = phoneColors(theme.palette.mode);
  const toast = useToast();
  const conversation = useSimulatorConversation(whatsappId, customer.number);
  const send = useSendAsCustomer(whatsappId);
  const [text, setText] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const textInput = useRef<HTMLTextAreaElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const nearBottom = useRef(true);
  const messages = useMemo(() => conversation.data ?? [], [conversation.data]);

  const scrollToBottom = useCallback((force = false) => {
    const el = scroller.current;
    if (el && (force || nearBottom.current)) el.scrollTop = el.scrollHeight;
  }, []);
  useLayoutEffect(() => scrollToBottom(), [messages, scrollToBottom]);
  useLayoutEffect(() => {
    nearBottom.current = true;
    scrollToBottom(true);
  }, [customer.number, scrollToBottom]);

  const submit = async () => {
    const body = text.trim();
    if (!body && !file) return;
    if (file && file.size > MAX_FILE_BYTES) {
      toast.warning('simulator.tooLarge');
      return;
    }
    let media: { mimetype: string; filename: string; data: string } | undefined;
    let localUrl: string | undefined;
    if (file) {
      try {
        media = {
          mimetype: file.type || 'application/octet-stream',
          filename: file.name,
          data: await readAsBase64(file),
        };
      } catch (err) {
        toast.error(err);
        return;
      }
      localUrl = URL.createObjectURL(file);
    }
    setText('');
    setFile(null);
    nearBottom.current = true;
    send.mutate(
      {
        id: newMessageId(),
        from: customer.number,
        ...(customer.name && customer.name !== customer.number ? { name: customer.name } : {}),
        ...(body ? { body } : {}),
        ...(media ? { media } : {}),
        localUrl,
      },
      { onError: (err) => toast.error(err) },
    );
    textInput.current?.focus();
  };

  const items: (
    { kind: 'day'; key: string; label: string } | { kind: 'message'; message: SimulatorMessage }
  )[] = [];
  let lastDay = '';
  for (const m of messages) {
    const day = new Date(m.createdAt).toDateString();
    if (day !== lastDay) {
      items.push({ kind: 'day', key: day, label: dayLabel(m.createdAt, i18n.language, t) });
      lastDay = day;
    }
    items.push({ kind: 'message', message: m });
  }

  return (
    <Box
      data-testid="sim-phone"
      sx={{
        height: '100%',
        width: '100%',
        maxWidth: 440,
        mx: 'auto',
        display: 'flex',
        flexDirection: 'column',
        borderRadius: { xs: 2, sm: 5 },
        border: { xs: 0, sm: `10px solid ${colors.frame}` },
        boxShadow: { xs: 0, sm: 6 },
        overflow: 'hidden',
        bgcolor: colors.wallpaper,
      }}
    >
      {/* What the customer sees at the top of the chat: the company's connection. */}
      <Box
        sx={{
          display: 'flex',
          alignItems: 'center',
          gap: 1.25,
          px: 1,
          py: 1,
          bgcolor: colors.header,
          color: colors.headerText,
        }}
      >
        <IconButton
          size="small"
          onClick={onBack}
          aria-label={t('simulator.backToCustomers')}
          sx={{ color: 'inherit', display: { md: 'none' } }}
        >
          <ArrowBackIcon />
        </IconButton>
        <Avatar sx={{ bgcolor: '#dfe5e7', color: '#54656f', width: 38, height: 38, ml: { md: 0.5 } }}>
          <ScienceIcon fontSize="small" />
        </Avatar>
        <Box sx={{ minWidth: 0, flex: 1 }}>
          <Typography sx={{ fontWeight: 600, lineHeight: 1.2 }} noWrap data-testid="sim-phone-title">
            {connectionName}
          </Typography>
          <Typography variant="caption" sx={{ opacity: 0.85, display: 'block' }} noWrap>
            {connected ? t('simulator.online') : statusLabel}
          </Typography>
        </Box>
        <Chip
          size="small"
          label={t('simulator.youAre', {
            name:
              customer.name && customer.name !== customer.number
                ? customer.name
                : formatNumber(customer.number),
          })}
          sx={{
            maxWidth: { xs: 110, sm: 170 },
            color: 'inherit',
            bgcolor: 'rgba(255,255,255,0.16)',
            '& .MuiChip-label': { overflow: 'hidden', textOverflow: 'ellipsis' },
          }}
        />
      </Box>

      <Box
        ref={scroller}
        onScroll={(e) => {
          const el = e.currentTarget;
          nearBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
        }}
        data-testid="sim-messages"
        sx={{ flex: 1, minHeight: 0, overflowY: 'auto', py: 1 }}
      >
        {connected ? null : (
          <Alert severity="warning" sx={{ mx: 1.5, mb: 1 }}>
            {t('simulator.notConnected', { status: statusLabel })}
          </Alert>
        )}
        {conversation.isLoading ? (
          <Box sx={{ display: 'grid', placeItems: 'center', py: 4 }}>
            <CircularProgress size={24} aria-label={t('common.loading')} />
          </Box>
        ) : null}
        {!conversation.isLoading && messages.length === 0 ? (
          <Box sx={{ display: 'flex', justifyContent: 'center', px: 2, pt: 2 }}>
            <Typography
              variant="caption"
              sx={{
                bgcolor: colors.chip,
                color: colors.meta,
                px: 1.5,
                py: 0.75,
                borderRadius: 1.5,
                textAlign: 'center',
              }}
            >
              {t('simulator.emptyConversation')}
            </Typography>
          </Box>
        ) : null}
        {items.map((item) =>
          item.kind === 'day' ? (
            <Box key={`day-${item.key}`} sx={{ display: 'flex', justifyContent: 'center', my: 1 }}>
              <Typography
                variant="caption"
                sx={{
                  bgcolor: colors.chip,
                  color: colors.meta,
                  px: 1.25,
                  py: 0.4,
                  borderRadius: 1.5,
                  boxShadow: 1,
                }}
              >
                {item.label}
              </Typography>
            </Box>
          ) : (
            <MessageBubble
              key={item.message.id}
              message={item.message}
              companyName={connectionName}
              onMediaLoad={() => scrollToBottom()}
            />
          ),
        )}
      </Box>

      {file ? (
        <Box sx={{ px: 1, pt: 0.75, bgcolor: colors.bar }}>
          <Chip
            icon={<AttachFileIcon />}
            label={`${file.name} · ${Math.max(1, Math.round(file.size / 1024))} KB`}
            onDelete={() => setFile(null)}
            deleteIcon={
              <Tooltip title={t('simulator.removeAttachment')}>
                <CloseIcon aria-label={t('simulator.removeAttachment')} />
              </Tooltip>
            }
            data-testid="sim-attachment"
            sx={{ maxWidth: '100%' }}
          />
        </Box>
      ) : null}
      <Box
        component="form"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          void submit();
        }}
        sx={{ display: 'flex', alignItems: 'flex-end', gap: 0.75, px: 1, py: 1, bgcolor: colors.bar }}
      >
        <input
          ref={fileInput}
          type="file"
          hidden
          data-testid="sim-file-input"
          onChange={(e) => {
            const chosen = e.target.files?.[0] ?? null;
            e.target.value = '';
            if (chosen && chosen.size > MAX_FILE_BYTES) toast.warning('simulator.tooLarge');
            else if (chosen) setFile(chosen);
          }}
        />
        <Tooltip title={t('simulator.attach')}>
          <IconButton
            onClick={() => fileInput.current?.click()}
            aria-label={t('simulator.attach')}
            sx={{ color: colors.meta }}
          >
            <AttachFileIcon />
          </IconButton>
        </Tooltip>
        <InputBase
          inputRef={textInput}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void submit();
            }
          }}
          placeholder={t('simulator.typeMessage')}
          multiline
          maxRows={5}
          autoFocus
          inputProps={{ 'aria-label': t('simulator.typeMessage'), maxLength: 20000 }}
          sx={{
            flex: 1,
            bgcolor: colors.input,
            color: colors.text,
            borderRadius: 3,
            px: 1.5,
            py: 1,
            fontSize: 15,
          }}
        />
        <Tooltip title={t('simulator.send')}>
          <span>
            <IconButton
              type="submit"
              aria-label={t('simulator.send')}
              disabled={!text.trim() && !file}
              sx={{
                bgcolor: '#00a884',
                color: '#fff',
                '&:hover': { bgcolor: '#008f72' },
                '&.Mui-disabled': { bgcolor: '#00a88466', color: '#ffffffb3' },
              }}
            >
              <SendIcon fontSize="small" />
            </IconButton>
          </span>
        </Tooltip>
      </Box>
    </Box>
  );
}

/** "Play the customer" of a simulator connection: pick or create a customer and chat as them. */
export default function SimulatorPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const whatsappId = Number(useParams().whatsappId);
  const connection = useWhatsapp(Number.isInteger(whatsappId) && whatsappId > 0 ? whatsappId : null);
  useWhatsappsRealtime();
  const isSimulator = connection.data?.channel === 'simulator';
  const customersQuery = useSimulatorCustomers(whatsappId, isSimulator);
  const [drafts, setDrafts] = useState<SimulatorCustomer[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const selectedRef = useRef<string | null>(null);
  useEffect(() => {
    selectedRef.current = selected;
  }, [selected]);
  const readTimer = useRef<number | undefined>(undefined);

  // Opening a conversation: the customer has read it.
  useEffect(() => {
    if (!selected || !isSimulator) return;
    void customerRead(whatsappId, selected).catch(() => undefined);
  }, [selected, whatsappId, isSimulator]);
  useEffect(() => () => window.clearTimeout(readTimer.current), []);

  // While a conversation is open (and the page seen), the company's new messages get read too.
  const onEvent = useCallback(
    (event: SimulatorEvent) => {
      const m = event.message;
      if (event.action !== 'message' || !m.fromMe || m.number !== selectedRef.current) return;
      window.clearTimeout(readTimer.current);
      readTimer.current = window.setTimeout(() => {
        if (document.visibilityState === 'visible' && selectedRef.current === m.number)
          void customerRead(whatsappId, m.number).catch(() => undefined);
      }, READ_DELAY_MS);
    },
    [whatsappId],
  );
  useSimulatorRealtime(whatsappId, onEvent);

  const customers = useMemo(() => {
    const known = customersQuery.data ?? [];
    const numbers = new Set(known.map((c) => c.number));
    return [...drafts.filter((d) => !numbers.has(d.number)), ...known];
  }, [customersQuery.data, drafts]);
  const current = customers.find((c) => c.number === selected) ?? null;

  const create = ({ name, number }: { name: string; number: string }) => {
    if (!customers.some((c) => c.number === number))
      setDrafts((list) => [
        { number, name: name || number, lastMessage: '', lastAt: new Date().toISOString() },
        ...list.filter((c) => c.number !== number),
      ]);
    setSelected(number);
  };

  const w = connection.data;
  const statusLabel = w ? t(`connections.status.${w.status}`, { defaultValue: w.status }) : '';

  return (
    <Box
      sx={{
        p: { xs: 1.5, sm: 3 },
        display: 'flex',
        flexDirection: 'column',
        gap: 2,
        height: '100%',
        minHeight: 560,
        boxSizing: 'border-box',
      }}
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <Tooltip title={t('simulator.back')}>
          <IconButton aria-label={t('simulator.back')} onClick={() => void navigate('/connections')}>
            <ArrowBackIcon />
          </IconButton>
        </Tooltip>
        <Box sx={{ minWidth: 0, flex: 1 }}>
          <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }} noWrap>
            {t('simulator.title')}
            {w ? (
              <Typography component="span" color="text.secondary" sx={{ ml: 1, fontSize: '0.9em' }}>
                · {w.name}
              </Typography>
            ) : null}
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ display: { xs: 'none', sm: 'block' } }}>
            {t('simulator.hint')}
          </Typography>
        </Box>
        {w ? <ConnectionStatus status={w.status} /> : null}
      </Box>

      {connection.isError ? (
        <Alert severity="error">{t('simulator.notFound')}</Alert>
      ) : connection.isLoading || !w ? (
        <Box sx={{ display: 'grid', placeItems: 'center', flex: 1 }}>
          <CircularProgress aria-label={t('common.loading')} />
        </Box>
      ) : !isSimulator ? (
        <Alert severity="info">{t('simulator.notSimulator')}</Alert>
      ) : (
        <Box
          sx={{
            flex: 1,
            minHeight: 0,
            display: 'grid',
            gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: '320px minmax(0, 1fr)' },
            gap: 2,
          }}
        >
          <Paper
            variant="outlined"
            sx={{
              display: { xs: current ? 'none' : 'flex', md: 'flex' },
              flexDirection: 'column',
              minHeight: 0,
              overflow: 'hidden',
            }}
          >
            <NewCustomerForm onCreate={create} />
            <Typography
              variant="overline"
              color="text.secondary"
              sx={{ px: 1.5, pt: 0.5, borderTop: 1, borderColor: 'divider' }}
            >
              {t('simulator.customers')}
            </Typography>
            <Box sx={{ flex: 1, minHeight: 0, overflowY: 'auto' }} data-testid="sim-customers">
              <CustomerList
                customers={customers}
                loading={customersQuery.isLoading}
                selected={selected}
                onSelect={setSelected}
              />
            </Box>
          </Paper>
          <Box sx={{ display: { xs: current ? 'flex' : 'none', md: 'flex' }, minHeight: 0, minWidth: 0 }}>
            {current ? (
              <Phone
                whatsappId={whatsappId}
                connectionName={w.name}
                connected={w.status === 'CONNECTED'}
                statusLabel={statusLabel}
                customer={current}
                onBack={() => setSelected(null)}
              />
            ) : (
              <Paper
                variant="outlined"
                sx={{
                  flex: 1,
                  display: 'flex',
                  flexDirection: 'column',
                  alignItems: 'center',
                  justifyContent: 'center',
                  gap: 1.5,
                  p: 3,
                  textAlign: 'center',
                }}
              >
                <ScienceIcon sx={{ fontSize: 48, color: 'text.disabled' }} />
                <Typography color="text.secondary" sx={{ maxWidth: 360 }}>
                  {t('simulator.pick')}
                </Typography>
              </Paper>
            )}
          </Box>
        </Box>
      )}
    </Box>
  );
}
