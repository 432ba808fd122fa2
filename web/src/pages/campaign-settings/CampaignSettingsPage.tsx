import { useEffect, useState } from 'react';
import {
  Box,
  Button,
  CircularProgress,
  Grid,
  IconButton,
  MenuItem,
  Paper,
  Stack,
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
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import SaveOutlinedIcon from '@mui/icons-material/SaveOutlined';
import { useTranslation } from 'react-i18next';
import {
  CAMPAIGN_GREATER_INTERVAL_OPTIONS,
  CAMPAIGN_LONGER_INTERVAL_AFTER_OPTIONS,
  CAMPAIGN_MESSAGE_INTERVAL_OPTIONS,
  CAMPAIGN_SETTING_DEFAULTS,
  CampaignVariable,
  can,
  type CampaignSettingsValues,
} from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useCampaignSettings, useSaveCampaignSettings } from '../../api/campaign-settings.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { ListStatusRow } from '../../components/ListStatusRow.js';
import { PageHeader } from '../../components/PageHeader.js';

type IntervalKey = 'messageInterval' | 'longerIntervalAfter' | 'greaterInterval';

const SELECTS: { key: IntervalKey; options: readonly number[]; unit: 'seconds' | 'sends' }[] = [
  { key: 'messageInterval', options: CAMPAIGN_MESSAGE_INTERVAL_OPTIONS, unit: 'seconds' },
  { key: 'longerIntervalAfter', options: CAMPAIGN_LONGER_INTERVAL_AFTER_OPTIONS, unit: 'sends' },
  { key: 'greaterInterval', options: CAMPAIGN_GREATER_INTERVAL_OPTIONS, unit: 'seconds' },
];

/**
 * Campaign settings (docs/campaigns.md): the three interval selects, the variables (shortcut and content,
 * a shortcut already present is not added again), and one save for everything.
 */
export default function CampaignSettingsPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const manage = can(user, 'admin-menu:view') || Boolean(user?.super);
  const query = useCampaignSettings();
  const save = useSaveCampaignSettings();
  const [values, setValues] = useState<CampaignSettingsValues>(CAMPAIGN_SETTING_DEFAULTS);
  const [shortcut, setShortcut] = useState('');
  const [content, setContent] = useState('');
  const [varError, setVarError] = useState<{ key?: string; value?: string }>({});
  const [deleting, setDeleting] = useState<string | null>(null);

  useEffect(() => {
    if (query.data) setValues(query.data);
  }, [query.data]);

  const optionLabel = (key: IntervalKey, v: number) =>
    v === 0
      ? t(key === 'messageInterval' ? 'campaignSettings.none' : 'campaignSettings.notDefined')
      : t(key === 'longerIntervalAfter' ? 'campaignSettings.sends' : 'campaignSettings.seconds', {
          count: v,
        });

  const addVariable = () => {
    const parsed = CampaignVariable.safeParse({ key: shortcut, value: content });
    if (!parsed.success) {
      const errs: { key?: string; value?: string } = {};
      for (const issue of parsed.error.issues) {
        const f = issue.path[0] as 'key' | 'value';
        errs[f] =
          (f === 'key' ? shortcut : content).trim() === ''
            ? t('common.required')
            : f === 'key'
              ? t('campaignSettings.shortcutFormat')
              : t('common.tooLong');
      }
      return void setVarError(errs);
    }
    if (values.variables.some((v) => v.key.toLowerCase() === parsed.data.key.toLowerCase()))
      return void setVarError({ key: t('campaignSettings.shortcutTaken') });
    setValues((s) => ({ ...s, variables: [...s.variables, parsed.data] }));
    setShortcut('');
    setContent('');
    setVarError({});
  };

  const submit = async () => {
    try {
      await save.mutateAsync(values);
      toast.success('campaignSettings.saved');
    } catch (err) {
      toast.error(err);
    }
  };

  return (
    <Box sx={{ p: { xs: 1.5, sm: 3 }, display: 'flex', flexDirection: 'column', gap: 2, minHeight: 0 }}>
      <PageHeader title={t('campaignSettings.title')}>
        {manage ? (
          <Button
            variant="contained"
            startIcon={save.isPending ? <CircularProgress size={16} color="inherit" /> : <SaveOutlinedIcon />}
            disabled={save.isPending || query.isLoading}
            onClick={() => void submit()}
            data-testid="campaign-settings-save"
          >
            {t('common.save')}
          </Button>
        ) : null}
      </PageHeader>

      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <Typography variant="subtitle1" sx={{ fontWeight: 600, mb: 0.5 }}>
          {t('campaignSettings.intervals')}
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {t('campaignSettings.intervalsHelp')}
        </Typography>
        <Grid container spacing={2}>
          {SELECTS.map(({ key, options }) => (
            <Grid key={key} size={{ xs: 12, md: 4 }}>
              <TextField
                select
                fullWidth
                label={t(`campaignSettings.${key}`)}
                value={values[key]}
                disabled={!manage || query.isLoading}
                onChange={(e) => setValues((s) => ({ ...s, [key]: Number(e.target.value) }))}
                slotProps={{ htmlInput: { 'data-field': key } }}
              >
                {options.map((v) => (
                  <MenuItem key={v} value={v}>
                    {optionLabel(key, v)}
                  </MenuItem>
                ))}
              </TextField>
            </Grid>
          ))}
        </Grid>
      </Paper>

      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <Typography variant="subtitle1" sx={{ fontWeight: 600, mb: 0.5 }}>
          {t('campaignSettings.variables')}
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {t('campaignSettings.variablesHelp')}
        </Typography>
        {manage ? (
          <Stack
            direction={{ xs: 'column', md: 'row' }}
            spacing={1.5}
            sx={{ alignItems: { md: 'flex-start' }, mb: 2 }}
            component="form"
            onSubmit={(e) => {
              e.preventDefault();
              addVariable();
            }}
          >
            <TextField
              label={t('campaignSettings.shortcut')}
              value={shortcut}
              onChange={(e) => setShortcut(e.target.value)}
              error={Boolean(varError.key)}
              helperText={
                varError.key ??
                t('campaignSettings.shortcutHelp', { example: `{${shortcut.trim() || 'loja'}}` })
              }
              sx={{ width: { md: 260 }, flexShrink: 0 }}
              slotProps={{ htmlInput: { 'data-field': 'shortcut', maxLength: 30 } }}
            />
            <TextField
              label={t('campaignSettings.content')}
              value={content}
              onChange={(e) => setContent(e.target.value)}
              error={Boolean(varError.value)}
              helperText={varError.value}
              sx={{ flex: 1, minWidth: 0 }}
              slotProps={{ htmlInput: { 'data-field': 'content', maxLength: 1000 } }}
            />
            <Button
              type="submit"
              variant="outlined"
              startIcon={<AddIcon />}
              sx={{ mt: { md: 1 }, whiteSpace: 'nowrap' }}
            >
              {t('campaignSettings.addVariable')}
            </Button>
          </Stack>
        ) : null}
        <TableContainer>
          <Table size="small" aria-label={t('campaignSettings.variables')}>
            <TableHead>
              <TableRow>
                <TableCell sx={{ width: 220 }}>{t('campaignSettings.shortcut')}</TableCell>
                <TableCell>{t('campaignSettings.content')}</TableCell>
                {manage ? <TableCell align="right">{t('common.actions')}</TableCell> : null}
              </TableRow>
            </TableHead>
            <TableBody>
              {values.variables.map((v) => (
                <TableRow key={v.key} hover data-testid="campaign-variable-row">
                  <TableCell sx={{ fontFamily: 'monospace', fontWeight: 500 }}>{`{${v.key}}`}</TableCell>
                  <TableCell sx={{ wordBreak: 'break-word' }}>{v.value}</TableCell>
                  {manage ? (
                    <TableCell align="right">
                      <Tooltip title={t('common.delete')}>
                        <IconButton
                          size="small"
                          aria-label={t('common.delete')}
                          onClick={() => setDeleting(v.key)}
                        >
                          <DeleteOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    </TableCell>
                  ) : null}
                </TableRow>
              ))}
              <ListStatusRow
                colSpan={manage ? 3 : 2}
                loading={query.isLoading}
                empty={!query.isLoading && values.variables.length === 0}
              />
            </TableBody>
          </Table>
        </TableContainer>
      </Paper>

      <ConfirmationDialog
        open={deleting !== null}
        title={t('campaignSettings.deleteTitle', { name: deleting ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={() =>
          setValues((s) => ({ ...s, variables: s.variables.filter((v) => v.key !== deleting) }))
        }
        confirmLabel={t('common.delete')}
      >
        {t('campaignSettings.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
