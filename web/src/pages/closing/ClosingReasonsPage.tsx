import { useEffect, useState, type FormEvent } from 'react';
import { Box, Button, Chip, MenuItem, Paper, Stack, TextField, Typography } from '@mui/material';
import {
  CLOSING_REASON_MODES,
  formatProtocol,
  protocolPatternProblem,
  type ClosingReason,
  type SettingKey,
} from '@recado/contracts';
import { closingReasonResource } from '../../api/closing-reasons.js';
import { ApiError } from '../../api/client.js';
import { useSetting, useUpdateSetting } from '../../api/settings.js';
import { useToast } from '../../app/useToast.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { ClosingReasonDialog } from './ClosingReasonDialog.js';
import { useClosingT } from './closing-i18n.js';

const MODE_LABEL = { off: 'modeOff', optional: 'modeOptional', required: 'modeRequired' } as const;

/** The message of a 400 naming `field` (ERR_VALIDATION's fields), else null. */
function fieldError(err: unknown, field: string): string | null {
  if (!(err instanceof ApiError) || err.status !== 400) return null;
  const fields = (err.body as { fields?: { path?: string; message?: string }[] } | undefined)?.fields;
  return fields?.find((f) => f.path === field)?.message ?? err.message;
}

/** The mode select and the protocol pattern (company settings `closingReasonMode`, `protocolPattern`). */
function ClosingSettings() {
  const { t } = useClosingT();
  const toast = useToast();
  const update = useUpdateSetting();
  const mode = useSetting('closingReasonMode');
  const savedPattern = useSetting('protocolPattern');
  const [pattern, setPattern] = useState(savedPattern);
  const [serverError, setServerError] = useState<string | null>(null);
  useEffect(() => setPattern(savedPattern), [savedPattern]);

  const put = async (key: SettingKey, value: string) => {
    try {
      await update.mutateAsync({ key, value });
      toast.success('closing:settings.saved');
      return true;
    } catch (err) {
      const problem = fieldError(err, key);
      if (problem) setServerError(problem);
      else toast.error(err);
      return false;
    }
  };
  const trimmed = pattern.trim();
  const localProblem = trimmed ? protocolPatternProblem(trimmed) : null;
  // The rule's own words are English (contracts): the field says it in the user's language.
  const shownError = serverError || localProblem ? t('settings.patternInvalid') : null;
  const now = new Date();
  const example =
    trimmed && !localProblem
      ? formatProtocol(trimmed, 123, {
          year: now.getFullYear(),
          month: now.getMonth() + 1,
          day: now.getDate(),
        })
      : '';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setServerError(null);
    // Sent even when the web sees a problem: the server's 400 names the field (the same rule).
    await put('protocolPattern', trimmed);
  };

  return (
    <Paper variant="outlined" sx={{ p: { xs: 1.5, sm: 2 } }} data-testid="closing-settings">
      <Typography variant="h6" component="h2" sx={{ mb: 1.5 }}>
        {t('settings.title')}
      </Typography>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: { md: 'flex-start' } }}>
        <TextField
          select
          size="small"
          label={t('settings.mode')}
          value={mode}
          onChange={(e) => void put('closingReasonMode', e.target.value)}
          disabled={update.isPending}
          sx={{ minWidth: 220 }}
          helperText=" "
          slotProps={{ select: { inputProps: { 'data-testid': 'closing-mode' } } }}
        >
          {CLOSING_REASON_MODES.map((m) => (
            <MenuItem key={m} value={m} data-value={m}>
              {t(`settings.${MODE_LABEL[m]}`)}
            </MenuItem>
          ))}
        </TextField>
        <Box
          component="form"
          onSubmit={submit}
          sx={{ display: 'flex', gap: 1, flex: 1, minWidth: { xs: 0, md: 320 } }}
        >
          <TextField
            size="small"
            label={t('settings.pattern')}
            value={pattern}
            onChange={(e) => {
              setPattern(e.target.value);
              setServerError(null);
            }}
            error={Boolean(shownError)}
            helperText={shownError ?? t('settings.patternHint', { example })}
            sx={{ flex: 1, minWidth: 0 }}
            slotProps={{ htmlInput: { maxLength: 60, 'data-testid': 'protocol-pattern' } }}
          />
          <Button
            type="submit"
            variant="outlined"
            disabled={update.isPending || trimmed === savedPattern}
            data-testid="protocol-pattern-save"
            sx={{ flexShrink: 0, height: 40 }}
          >
            {t('settings.save')}
          </Button>
        </Box>
      </Stack>
    </Paper>
  );
}

/** Closing reasons (#32.3, admins; docs/productivity.md "Closing reasons") and the protocol pattern (#32.4). */
export default function ClosingReasonsPage() {
  const { t } = useClosingT();
  const columns: ResourceColumn<ClosingReason>[] = [
    {
      header: t('page.name'),
      cell: (r) => (
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          {r.name}
        </Typography>
      ),
    },
    {
      header: t('page.status'),
      cell: (r) => (
        <Chip
          size="small"
          variant="outlined"
          color={r.active ? 'success' : 'default'}
          label={t(r.active ? 'page.active' : 'page.inactive')}
        />
      ),
    },
    { header: t('page.position'), align: 'center', headSx: { width: 100 }, cell: (r) => r.position },
  ];
  return (
    <Box
      sx={{
        p: { xs: 1.5, sm: 3 },
        display: 'flex',
        flexDirection: 'column',
        gap: 2,
        minHeight: 0,
        width: '100%',
        boxSizing: 'border-box',
      }}
    >
      <Typography variant="h5" component="h1">
        {t('page.title')}
      </Typography>
      <ClosingSettings />
      <Paper variant="outlined" sx={{ p: { xs: 1.5, sm: 2 } }}>
        <ResourceListPage
          embedded
          resource={closingReasonResource}
          i18n="closing:page"
          columns={columns}
          search={false}
          intro={
            <Typography variant="body2" color="text.secondary">
              {t('page.intro')}
            </Typography>
          }
          maxHeight="60dvh"
          testIds={{ list: 'closing-reasons-list', row: 'closing-reason-row', add: 'closing-reason-add' }}
          rowProps={(r) => ({ 'data-name': r.name, 'data-active': r.active })}
          deleteTitle={{ value: (r) => r.name }}
          renderDialog={(d) => <ClosingReasonDialog open={d.open} record={d.record} onClose={d.onClose} />}
        />
      </Paper>
    </Box>
  );
}
