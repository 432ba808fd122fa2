import { useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  Link,
  MenuItem,
  Paper,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import BlockOutlinedIcon from '@mui/icons-material/BlockOutlined';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { Link as RouterLink } from 'react-router';
import { useTranslation } from 'react-i18next';
import {
  API_TOKEN_EXPIRY_DAYS,
  API_TOKEN_SCOPES,
  ApiTokenInput,
  type ApiTokenKind,
  type ApiTokenScope,
} from '@recado/contracts';
import { apiTokenResources, useCreateApiToken, type ApiTokenRow } from '../../api/api-tokens.js';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { FormDialog } from '../../components/FormDialog.js';
import { PageHeader } from '../../components/PageHeader.js';
import { FROM_MD, ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';

/** Name, scope and expiry of a new token; on success the token goes to `onCreated` (shown once). */
function CreateTokenDialog({
  kind,
  open,
  onClose,
  onCreated,
}: {
  kind: ApiTokenKind;
  open: boolean;
  onClose(): void;
  onCreated(token: string): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const create = useCreateApiToken(kind);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<ApiTokenScope>('read');
  const [expiry, setExpiry] = useState<number | 0>(90);
  const [nameError, setNameError] = useState(false);

  const close = () => {
    setName('');
    setScope('read');
    setExpiry(90);
    setNameError(false);
    onClose();
  };
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const input = ApiTokenInput.safeParse({ name, scope, expiresInDays: expiry || null });
    if (!input.success) {
      setNameError(true);
      return;
    }
    try {
      const created = await create.mutateAsync(input.data);
      onCreated(created.token);
      close();
    } catch (err) {
      toast.error(err);
    }
  };

  return (
    <FormDialog
      open={open}
      title={t(`apiTokens.${kind}.add`)}
      onClose={close}
      onSubmit={(e) => void submit(e)}
      submitting={create.isPending}
      submitLabel={t('apiTokens.create')}
    >
      <TextField
        autoFocus
        required
        size="small"
        label={t('apiTokens.name')}
        value={name}
        onChange={(e) => {
          setName(e.target.value);
          setNameError(false);
        }}
        error={nameError}
        helperText={nameError ? t('common.required') : t('apiTokens.nameHelp')}
        slotProps={{ htmlInput: { maxLength: 80, 'data-testid': 'api-token-name' } }}
      />
      <TextField
        select
        size="small"
        label={t('apiTokens.scope')}
        value={scope}
        onChange={(e) => setScope(e.target.value as ApiTokenScope)}
        helperText={t(`apiTokens.scopeHelp.${scope}`)}
        slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'api-token-scope' } as object } }}
      >
        {API_TOKEN_SCOPES.map((s) => (
          <MenuItem key={s} value={s} data-testid={`api-token-scope-${s}`}>
            {t(`apiTokens.scopes.${s}`)}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        size="small"
        label={t('apiTokens.expiry')}
        value={expiry}
        onChange={(e) => setExpiry(Number(e.target.value))}
      >
        {API_TOKEN_EXPIRY_DAYS.map((d) => (
          <MenuItem key={d} value={d}>
            {t('apiTokens.days', { count: d })}
          </MenuItem>
        ))}
        <MenuItem value={0}>{t('apiTokens.never')}</MenuItem>
      </TextField>
      {kind === 'company' && <Alert severity="info">{t('apiTokens.companyNote')}</Alert>}
    </FormDialog>
  );
}

/** The new token, once: copy it now, it is never shown again. */
function TokenShownDialog({ token, onClose }: { token: string | null; onClose(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  return (
    <Dialog open={token !== null} onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t('apiTokens.shownTitle')}</DialogTitle>
      <DialogContent dividers>
        <Stack spacing={2}>
          <Alert severity="warning">{t('apiTokens.shownOnce')}</Alert>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
            <Box
              component="code"
              data-testid="api-token-value"
              sx={{
                flex: 1,
                minWidth: 0,
                p: 1.5,
                borderRadius: 1,
                bgcolor: 'action.hover',
                fontSize: 13,
                wordBreak: 'break-all',
              }}
            >
              {token}
            </Box>
            <Tooltip title={t('apiTokens.copy')}>
              <IconButton
                aria-label={t('apiTokens.copy')}
                data-testid="api-token-copy"
                onClick={() => {
                  void navigator.clipboard
                    ?.writeText(token ?? '')
                    .then(() => toast.success('apiTokens.copied'))
                    .catch(() => undefined);
                }}
              >
                <ContentCopyIcon />
              </IconButton>
            </Tooltip>
          </Box>
          <Typography variant="body2" color="text.secondary">
            {t('apiTokens.usage')}
          </Typography>
        </Stack>
      </DialogContent>
      <DialogActions sx={{ px: 3, py: 1.5 }}>
        <Button variant="contained" onClick={onClose} data-testid="api-token-done">
          {t('apiTokens.done')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** One list of tokens (the user's own, or the company's) with its create and revoke. */
function TokenSection({ kind }: { kind: ApiTokenKind }) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const resource = apiTokenResources[kind];
  const revoke = resource.useDelete();
  const [shown, setShown] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<ApiTokenRow | null>(null);
  const when = (iso: string | null, empty: string) =>
    iso ? new Date(iso).toLocaleString(i18n.language, { dateStyle: 'short', timeStyle: 'short' }) : empty;
  const expired = (r: ApiTokenRow) => Boolean(r.expiresAt && Date.parse(r.expiresAt) <= Date.now());

  const columns: ResourceColumn<ApiTokenRow>[] = [
    {
      header: t('apiTokens.name'),
      cell: (r) => (
        <Box sx={{ minWidth: 0 }}>
          <Typography variant="body2" sx={{ fontWeight: 600, wordBreak: 'break-word' }}>
            {r.name}
          </Typography>
          <Typography variant="caption" color="text.secondary" sx={{ fontFamily: 'monospace' }}>
            {r.hint}…
          </Typography>
        </Box>
      ),
    },
    {
      header: t('apiTokens.scope'),
      cell: (r) => (
        <Chip
          size="small"
          label={t(`apiTokens.scopes.${r.scope}`)}
          color={r.scope === 'read' ? 'default' : 'primary'}
        />
      ),
    },
    ...(kind === 'company'
      ? [{ header: t('apiTokens.actsAs'), headSx: FROM_MD, cell: (r: ApiTokenRow) => r.userName }]
      : []),
    {
      header: t('apiTokens.lastUsed'),
      cell: (r) => when(r.lastUsedAt, t('apiTokens.neverUsed')),
      cellProps: () => ({ 'data-testid': 'api-token-last-used' }),
    },
    {
      header: t('apiTokens.expires'),
      headSx: FROM_MD,
      cell: (r) =>
        expired(r) ? (
          <Chip size="small" color="error" label={t('apiTokens.expired')} />
        ) : (
          when(r.expiresAt, t('apiTokens.never'))
        ),
    },
  ];

  return (
    <Paper variant="outlined" sx={{ p: { xs: 1.5, sm: 2 } }} data-testid={`api-tokens-${kind}`}>
      <ResourceListPage
        embedded
        resource={resource}
        i18n={`apiTokens.${kind}`}
        columns={columns}
        search={false}
        testIds={{ list: `api-tokens-${kind}-list`, row: 'api-token-row', add: `api-token-add-${kind}` }}
        rowProps={(r) => ({ 'data-name': r.name })}
        intro={
          <>
            <Typography variant="h6" component="h2">
              {t(`apiTokens.${kind}.title`)}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {t(`apiTokens.${kind}.intro`)}
            </Typography>
          </>
        }
        maxHeight="50dvh"
        canEditRow={() => false}
        extraActions={(r) => (
          <Tooltip title={t('apiTokens.revoke')}>
            <IconButton
              size="small"
              aria-label={t('apiTokens.revoke')}
              data-testid="api-token-revoke"
              onClick={() => setRevoking(r)}
            >
              <BlockOutlinedIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        )}
        deleteTitle={{ value: (r) => r.name }}
        renderDialog={(d) => (
          <CreateTokenDialog kind={kind} open={d.open} onClose={d.onClose} onCreated={setShown} />
        )}
      />
      <TokenShownDialog token={shown} onClose={() => setShown(null)} />
      <ConfirmationDialog
        open={revoking !== null}
        title={t('apiTokens.revokeTitle', { name: revoking?.name ?? '' })}
        confirmLabel={t('apiTokens.revoke')}
        onClose={() => setRevoking(null)}
        onConfirm={async () => {
          if (!revoking) return;
          try {
            await revoke.mutateAsync(revoking.id);
            toast.success('apiTokens.revoked');
          } catch (err) {
            toast.error(err);
            throw err;
          }
        }}
      >
        {t('apiTokens.revokeMessage')}
      </ConfirmationDialog>
    </Paper>
  );
}

/** /tokens (docs/api.md "API tokens"): the user's own tokens and, for admins, the company's. */
export default function ApiTokensPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const admin = user?.profile === 'admin' || Boolean(user?.super);
  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 1100 }}>
      <PageHeader title={t('apiTokens.title')} />
      <Typography color="text.secondary">
        {t('apiTokens.intro')}{' '}
        <Link href="/api/docs" target="_blank" rel="noopener" data-testid="api-tokens-docs">
          {t('apiTokens.docsLink')}
        </Link>
        {' · '}
        <Link component={RouterLink} to="/messages-api">
          {t('apiTokens.connectionLink')}
        </Link>
      </Typography>
      <TokenSection kind="user" />
      {admin && <TokenSection kind="company" />}
    </Box>
  );
}
