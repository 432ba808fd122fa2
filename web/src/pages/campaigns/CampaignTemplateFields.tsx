import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert, Box, CircularProgress, MenuItem, Stack, TextField, Typography } from '@mui/material';
import {
  CAMPAIGN_TEMPLATE_SOURCES,
  renderTemplate,
  templateNeeds,
  type Campaign,
  type CampaignTemplate,
  type CampaignTemplateSource,
  type MessageTemplate,
} from '@recado/contracts';
import { useTemplates } from '../../api/templates.js';
import { TemplatePreview } from '../../components/templates/TemplateFields.js';

/** One value's source as the form holds it. */
export interface TemplateValueForm {
  source: CampaignTemplateSource;
  text: string;
}

/** The dialog's template part: the chosen template ('name|language') and each value's source. */
export interface TemplateForm {
  key: string;
  variables: TemplateValueForm[];
  headerVariables: TemplateValueForm[];
  headerMediaUrl: string;
}

export const emptyTemplateForm = (): TemplateForm => ({
  key: '',
  variables: [],
  headerVariables: [],
  headerMediaUrl: '',
});

export const templateFormOf = (t: Campaign['template'] | undefined): TemplateForm =>
  t
    ? {
        key: `${t.name}|${t.language}`,
        variables: (t.variables ?? []).map((v) => ({ source: v.source, text: v.text ?? '' })),
        headerVariables: (t.headerVariables ?? []).map((v) => ({ source: v.source, text: v.text ?? '' })),
        headerMediaUrl: t.headerMediaUrl ?? '',
      }
    : emptyTemplateForm();

const keyOf = (x: MessageTemplate) => `${x.name}|${x.language}`;
const byDefault = (i: number): TemplateValueForm => ({ source: i === 0 ? 'name' : 'text', text: '' });
const filled = (v: TemplateValueForm | undefined) => Boolean(v && (v.source !== 'text' || v.text.trim()));

/** What the API takes from the form, or the reason it can't be saved yet ('choose', 'unmapped'). */
export function templateInput(
  form: TemplateForm,
  list: MessageTemplate[] | undefined,
): { template: CampaignTemplate } | { problem: 'choose' | 'unmapped' } {
  const [name, language] = form.key.split('|');
  if (!name || !language) return { problem: 'choose' };
  const chosen = list?.find((x) => keyOf(x) === form.key);
  const needs = chosen ? templateNeeds(chosen.components) : null;
  const variables = needs
    ? Array.from({ length: needs.body }, (_, i) => form.variables[i] ?? byDefault(i))
    : form.variables;
  const headerVariables = needs
    ? Array.from({ length: needs.header }, (_, i) => form.headerVariables[i] ?? byDefault(i))
    : form.headerVariables;
  if (
    needs &&
    (![...variables, ...headerVariables].every(filled) ||
      (needs.headerMedia && !/^https?:\/\/\S+$/.test(form.headerMediaUrl.trim())))
  )
    return { problem: 'unmapped' };
  const clean = (v: TemplateValueForm) => ({ source: v.source, text: v.text.trim() });
  return {
    template: {
      name,
      language,
      variables: variables.map(clean),
      headerVariables: headerVariables.map(clean),
      ...(needs?.headerMedia && form.headerMediaUrl.trim()
        ? { headerMediaUrl: form.headerMediaUrl.trim() }
        : {}),
    },
  };
}

/**
 * A Cloud API campaign's message (docs/campaigns.md): one of the connection's approved templates, and for
 * each of its values where it comes from — a field of the contact list (with a text for when it is empty)
 * or a fixed text. The preview shows the template as WhatsApp will, with the sources in brackets.
 */
export function CampaignTemplateFields({
  whatsappId,
  value,
  onChange,
  readOnly,
  error,
}: {
  whatsappId: number;
  value: TemplateForm;
  onChange(next: TemplateForm): void;
  readOnly: boolean;
  error?: string;
}) {
  const { t } = useTranslation();
  const templates = useTemplates(whatsappId, true);
  const list = templates.data ?? [];
  const chosen = list.find((x) => keyOf(x) === value.key);
  const needs = useMemo(
    () => (chosen ? templateNeeds(chosen.components) : { body: 0, header: 0, headerMedia: null }),
    [chosen],
  );
  const variables = Array.from({ length: needs.body }, (_, i) => value.variables[i] ?? byDefault(i));
  const headerVariables = Array.from(
    { length: needs.header },
    (_, i) => value.headerVariables[i] ?? byDefault(i),
  );
  const label = (v: TemplateValueForm) =>
    v.source === 'text' ? v.text.trim() || '…' : `[${t(`campaigns.template.sources.${v.source}`)}]`;
  const preview = chosen
    ? renderTemplate(chosen.components, {
        variables: variables.map(label),
        headerVariables: headerVariables.map(label),
      })
    : '';

  const row = (
    v: TemplateValueForm,
    name: string,
    testId: string,
    set: (next: TemplateValueForm) => void,
  ) => (
    <Stack
      key={testId}
      direction={{ xs: 'column', sm: 'row' }}
      spacing={1}
      sx={{ alignItems: { sm: 'flex-start' } }}
    >
      <TextField
        select
        size="small"
        label={name}
        value={v.source}
        onChange={(e) => set({ ...v, source: e.target.value as CampaignTemplateSource })}
        disabled={readOnly}
        sx={{ minWidth: { sm: 200 } }}
        slotProps={{ htmlInput: { 'data-testid': `${testId}-source` } }}
      >
        {CAMPAIGN_TEMPLATE_SOURCES.map((s) => (
          <MenuItem key={s} value={s}>
            {t(`campaigns.template.sources.${s}`)}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        size="small"
        fullWidth
        label={t(v.source === 'text' ? 'campaigns.template.fixedText' : 'campaigns.template.fallback')}
        value={v.text}
        onChange={(e) => set({ ...v, text: e.target.value })}
        disabled={readOnly}
        required={v.source === 'text'}
        error={Boolean(error) && v.source === 'text' && !v.text.trim()}
        slotProps={{ htmlInput: { maxLength: 1024, 'data-testid': `${testId}-text` } }}
      />
    </Stack>
  );

  return (
    <Box
      data-testid="campaign-template"
      sx={{ border: 1, borderColor: error ? 'error.main' : 'divider', borderRadius: 1, p: 2 }}
    >
      <Stack spacing={1.5}>
        <Alert severity="info" sx={{ py: 0 }}>
          {t('campaigns.template.why')}
        </Alert>
        {templates.isLoading ? (
          <CircularProgress size={20} sx={{ alignSelf: 'center' }} />
        ) : !list.length ? (
          <Typography variant="body2" color="text.secondary" data-testid="campaign-templates-none">
            {t('campaigns.template.none')}
          </Typography>
        ) : (
          <TextField
            select
            size="small"
            label={t('campaigns.template.label')}
            value={chosen ? value.key : ''}
            onChange={(e) => onChange({ ...emptyTemplateForm(), key: e.target.value })}
            disabled={readOnly}
            error={Boolean(error) && !chosen}
            slotProps={{ htmlInput: { 'data-testid': 'campaign-template-select' } }}
          >
            {list.map((x) => (
              <MenuItem key={keyOf(x)} value={keyOf(x)}>
                {x.name} · {x.language}
              </MenuItem>
            ))}
          </TextField>
        )}
        {chosen && (needs.header || needs.body || needs.headerMedia) ? (
          <Typography variant="body2" color="text.secondary">
            {t('campaigns.template.mapHelp')}
          </Typography>
        ) : null}
        {headerVariables.map((v, i) =>
          row(v, t('campaigns.template.header'), `campaign-template-header-${i + 1}`, (next) =>
            onChange({
              ...value,
              variables,
              headerVariables: headerVariables.map((x, k) => (k === i ? next : x)),
            }),
          ),
        )}
        {needs.headerMedia ? (
          <TextField
            size="small"
            label={t(`templates.picker.media.${needs.headerMedia}`)}
            placeholder="https://"
            value={value.headerMediaUrl}
            onChange={(e) =>
              onChange({ ...value, variables, headerVariables, headerMediaUrl: e.target.value })
            }
            disabled={readOnly}
            required
            helperText={t('templates.picker.mediaHelp')}
            slotProps={{ htmlInput: { 'data-testid': 'campaign-template-media' } }}
          />
        ) : null}
        {variables.map((v, i) =>
          row(v, t('templates.picker.variable', { n: i + 1 }), `campaign-template-var-${i + 1}`, (next) =>
            onChange({
              ...value,
              headerVariables,
              variables: variables.map((x, k) => (k === i ? next : x)),
            }),
          ),
        )}
        {error ? (
          <Typography variant="caption" color="error" data-testid="campaign-template-error">
            {error}
          </Typography>
        ) : null}
        {chosen ? <TemplatePreview text={preview} testId="campaign-template-preview" /> : null}
      </Stack>
    </Box>
  );
}
