import { Fragment, useEffect, useState } from 'react';
import {
  Box,
  Button,
  Collapse,
  IconButton,
  MenuItem,
  Paper,
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
import FileDownloadIcon from '@mui/icons-material/FileDownload';
import KeyboardArrowDownIcon from '@mui/icons-material/KeyboardArrowDown';
import KeyboardArrowUpIcon from '@mui/icons-material/KeyboardArrowUp';
import type { AuditEntry } from '@recado/contracts';
import { downloadAuditCsv, useAuditLog, type AuditFilters } from '../../api/audit.js';
import { useSetting, useUpdateSetting } from '../../api/settings.js';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { DateRangeFields } from '../../components/DateField.js';
import { FROM_MD } from '../../components/ResourceListPage.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { useAuditT } from './audit-i18n.js';

/** The action filter's categories: the first part of the dotted action. */
const CATEGORIES = [
  'auth',
  'user',
  'settings',
  'whatsapp',
  'queue',
  'queue-option',
  'queue-integration',
  'prompt',
  'webhook',
  'api-token',
  'export',
  'import',
  'contact',
] as const;
const PLATFORM_CATEGORIES = ['company', 'plan', 'help', 'auth'] as const;

/** "Chrome on Windows" from a user-agent string (the whole string is in the tooltip). */
export function browserOf(ua: string | null): string {
  if (!ua) return '';
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /OPR\//.test(ua)
      ? 'Opera'
      : /Firefox\//.test(ua)
        ? 'Firefox'
        : /Chrome\/|Chromium\//.test(ua)
          ? 'Chrome'
          : /Safari\//.test(ua)
            ? 'Safari'
            : ua.split(/[ /]/)[0]!;
  const os = /Windows/.test(ua)
    ? 'Windows'
    : /Android/.test(ua)
      ? 'Android'
      : /iPhone|iPad/.test(ua)
        ? 'iOS'
        : /Mac OS X/.test(ua)
          ? 'macOS'
          : /Linux/.test(ua)
            ? 'Linux'
            : '';
  return os ? `${browser} · ${os}` : browser;
}

const show = (v: unknown) =>
  v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v);

/** The keys of before/after side by side. */
function Changes({ entry }: { entry: AuditEntry }) {
  const { t } = useAuditT();
  const obj = (v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : v == null
        ? {}
        : { '': v };
  const before = obj(entry.before);
  const after = obj(entry.after);
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return (
    <Box sx={{ py: 1 }} data-testid="audit-changes">
      <Typography
        variant="caption"
        color="text.secondary"
        component="div"
        sx={{ mb: 1, wordBreak: 'break-all' }}
      >
        {entry.ip ?? ''} {entry.userAgent ? `· ${entry.userAgent}` : ''}
      </Typography>
      {keys.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {t('audit:noDetails')}
        </Typography>
      ) : (
        <Table size="small" sx={{ tableLayout: 'fixed' }}>
          <TableHead>
            <TableRow>
              <TableCell sx={{ width: '28%' }} />
              <TableCell>{t('audit:before')}</TableCell>
              <TableCell>{t('audit:after')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {keys.map((k) => (
              <TableRow key={k} data-key={k}>
                <TableCell sx={{ fontWeight: 600, wordBreak: 'break-word' }}>{k}</TableCell>
                <TableCell
                  data-testid="audit-before"
                  sx={{ color: 'error.main', wordBreak: 'break-word', fontFamily: 'monospace', fontSize: 12 }}
                >
                  {k in before ? show(before[k]) : '—'}
                </TableCell>
                <TableCell
                  data-testid="audit-after"
                  sx={{
                    color: 'success.main',
                    wordBreak: 'break-word',
                    fontFamily: 'monospace',
                    fontSize: 12,
                  }}
                >
                  {k in after ? show(after[k]) : '—'}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </Box>
  );
}

function Row({ entry }: { entry: AuditEntry }) {
  const { t, i18n } = useAuditT();
  const [open, setOpen] = useState(false);
  const when = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'medium' }).format(
    new Date(entry.createdAt),
  );
  const category = entry.action.split('.')[0]!;
  return (
    <Fragment>
      <TableRow
        data-testid="audit-row"
        data-action={entry.action}
        hover
        sx={{ '& > td': { borderBottom: open ? 'none' : undefined } }}
      >
        <TableCell sx={{ whiteSpace: 'nowrap' }}>{when}</TableCell>
        <TableCell sx={{ maxWidth: 200, overflow: 'hidden', textOverflow: 'ellipsis' }}>
          <Typography variant="body2" noWrap>
            {entry.actorName ?? entry.actorEmail ?? t('audit:system')}
          </Typography>
          {entry.actorName && entry.actorEmail ? (
            <Typography variant="caption" color="text.secondary" noWrap component="div">
              {entry.actorEmail}
            </Typography>
          ) : null}
        </TableCell>
        <TableCell>
          <Typography variant="body2" sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
            {entry.action}
          </Typography>
          <Typography variant="caption" color="text.secondary">
            {t(`audit:categories.${category}`, { defaultValue: category })}
            {entry.targetId ? ` #${entry.targetId}` : ''}
          </Typography>
        </TableCell>
        <TableCell sx={FROM_MD}>
          <Tooltip title={entry.userAgent ?? ''}>
            <Box>
              <Typography variant="body2">{entry.ip ?? '—'}</Typography>
              <Typography variant="caption" color="text.secondary">
                {browserOf(entry.userAgent)}
              </Typography>
            </Box>
          </Tooltip>
        </TableCell>
        <TableCell align="right" sx={{ width: 48 }}>
          <Tooltip title={t(open ? 'audit:hide' : 'audit:details')}>
            <IconButton
              size="small"
              onClick={() => setOpen((o) => !o)}
              aria-label={t(open ? 'audit:hide' : 'audit:details')}
              aria-expanded={open}
              data-testid="audit-expand"
            >
              {open ? <KeyboardArrowUpIcon /> : <KeyboardArrowDownIcon />}
            </IconButton>
          </Tooltip>
        </TableCell>
      </TableRow>
      <TableRow>
        <TableCell colSpan={5} sx={{ py: 0 }}>
          <Collapse in={open} unmountOnExit>
            <Changes entry={entry} />
          </Collapse>
        </TableCell>
      </TableRow>
    </Fragment>
  );
}

/** The company's retention (auditRetentionDays), beside the filters. */
function Retention() {
  const { t } = useAuditT();
  const toast = useToast();
  const stored = useSetting('auditRetentionDays');
  const [value, setValue] = useState(stored);
  useEffect(() => setValue(stored), [stored]);
  const update = useUpdateSetting();
  const n = Number(value);
  const valid = /^\d+$/.test(value) && n >= 30 && n <= 3650;
  return (
    <Box sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }}>
      <TextField
        size="small"
        type="number"
        label={t('audit:retention')}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        error={!valid}
        helperText={t('audit:retentionHint')}
        slotProps={{ htmlInput: { min: 30, max: 3650, 'data-testid': 'audit-retention' } }}
        sx={{ width: 240 }}
      />
      <Button
        variant="outlined"
        disabled={!valid || value === stored || update.isPending}
        onClick={() =>
          update.mutate(
            { key: 'auditRetentionDays', value },
            { onSuccess: () => toast.success('audit:retentionSaved'), onError: (e) => toast.error(e) },
          )
        }
        sx={{ mt: 0.25 }}
      >
        {t('audit:retentionSave')}
      </Button>
    </Box>
  );
}

/** The period's two date fields: side by side, full width on a phone. */
const dateField = { width: { xs: '100%', sm: 180 } } as const;
/** A day (yyyy-mm-dd, the browser's zone) as the instant it starts or ends. */
const dayStart = (d: string) => (d ? new Date(`${d}T00:00:00`).toISOString() : undefined);
const dayEnd = (d: string) => (d ? new Date(`${d}T23:59:59.999`).toISOString() : undefined);

/** #32.6 The audit log (admins; docs/audit.md): filters, the entries with their changes, CSV export, retention. */
export default function AuditLogPage() {
  const { t } = useAuditT();
  const toast = useToast();
  const { user } = useAuth();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [actor, setActor] = useState('');
  const [action, setAction] = useState('');
  const [scope, setScope] = useState<'company' | 'platform'>('company');
  const debouncedActor = useDebouncedValue(actor.trim(), 500);
  const filters: AuditFilters = {
    from: dayStart(from),
    to: dayEnd(to),
    actor: debouncedActor || undefined,
    action: action || undefined,
    scope: scope === 'platform' ? 'platform' : undefined,
  };
  const query = useAuditLog(filters);
  const entries = query.data?.pages.flatMap((p) => p.entries) ?? [];
  const [exporting, setExporting] = useState(false);
  const categories = scope === 'platform' ? PLATFORM_CATEGORIES : CATEGORIES;
  const exportCsv = async () => {
    setExporting(true);
    try {
      await downloadAuditCsv(filters);
    } catch (err) {
      toast.error(err);
    } finally {
      setExporting(false);
    }
  };
  return (
    <Box sx={{ p: { xs: 1, sm: 2 }, display: 'grid', gap: 2, minWidth: 0 }}>
      <PageHeader title={t('audit:title')}>
        <Button
          variant="contained"
          startIcon={<FileDownloadIcon />}
          onClick={() => void exportCsv()}
          disabled={exporting}
          data-testid="audit-export"
        >
          {t('audit:export')}
        </Button>
      </PageHeader>
      <Typography variant="body2" color="text.secondary" sx={{ mt: -1 }}>
        {t('audit:subtitle')}
      </Typography>
      <Paper variant="outlined" sx={{ p: { xs: 1.5, sm: 2 }, display: 'flex', flexWrap: 'wrap', gap: 1.5 }}>
        <DateRangeFields
          sx={dateField}
          labels={{ from: t('audit:from'), to: t('audit:to') }}
          value={{ from, to }}
          onChange={(range) => {
            setFrom(range.from);
            setTo(range.to);
          }}
          testIds={{ from: 'audit-from', to: 'audit-to' }}
        />
        <TextField
          size="small"
          label={t('audit:actor')}
          value={actor}
          onChange={(e) => setActor(e.target.value)}
          slotProps={{ htmlInput: { 'data-testid': 'audit-actor' } }}
        />
        <TextField
          size="small"
          select
          label={t('audit:action')}
          value={action}
          onChange={(e) => setAction(e.target.value)}
          sx={{ minWidth: 180 }}
          slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'audit-action' } as object } }}
        >
          <MenuItem value="">{t('audit:allActions')}</MenuItem>
          {categories.map((c) => (
            <MenuItem key={c} value={c}>
              {t(`audit:categories.${c}`)}
            </MenuItem>
          ))}
        </TextField>
        {user?.super ? (
          <TextField
            size="small"
            select
            label={t('audit:scope')}
            value={scope}
            onChange={(e) => {
              setScope(e.target.value as 'company' | 'platform');
              setAction('');
            }}
            sx={{ minWidth: 180 }}
          >
            <MenuItem value="company">{t('audit:scopeCompany')}</MenuItem>
            <MenuItem value="platform">{t('audit:scopePlatform')}</MenuItem>
          </TextField>
        ) : null}
      </Paper>
      <TableContainer component={Paper} variant="outlined">
        <Table size="small" stickyHeader data-testid="audit-list">
          <TableHead>
            <TableRow>
              <TableCell>{t('audit:when')}</TableCell>
              <TableCell>{t('audit:who')}</TableCell>
              <TableCell>{t('audit:what')}</TableCell>
              <TableCell sx={FROM_MD}>{t('audit:where')}</TableCell>
              <TableCell />
            </TableRow>
          </TableHead>
          <TableBody>
            {entries.map((e) => (
              <Row key={e.id} entry={e} />
            ))}
            <ListStatusRow
              colSpan={5}
              loading={query.isFetching}
              empty={!query.isFetching && entries.length === 0}
            />
          </TableBody>
        </Table>
      </TableContainer>
      {query.hasNextPage ? (
        <Box sx={{ display: 'flex', justifyContent: 'center' }}>
          <Button onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
            {t('audit:loadMore')}
          </Button>
        </Box>
      ) : null}
      {scope === 'company' ? <Retention /> : null}
    </Box>
  );
}
