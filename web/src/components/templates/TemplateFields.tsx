import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Box, CircularProgress, MenuItem, TextField, Typography } from '@mui/material';
import {
  renderTemplate,
  templateNeeds,
  type MessageTemplate,
  type TemplateSendInput,
} from '@recado/contracts';
import { useTemplates } from '../../api/templates.js';
import { WhatsAppText } from '../WhatsAppText.js';

const keyOf = (x: Pick<MessageTemplate, 'name' | 'language'>) => `${x.name}|${x.language}`;

interface Draft {
  key: string;
  values: string[];
  header: string;
  media: string;
}
/** A stored template (a schedule's, as the API answers it: lists may be absent) as the form's draft. */
type StoredTemplate = Pick<TemplateSendInput, 'name' | 'language' | 'headerMediaUrl'> &
  Partial<Pick<TemplateSendInput, 'variables' | 'headerVariables'>>;
const draftOf = (t?: StoredTemplate | null): Draft => ({
  key: t ? keyOf(t) : '',
  values: t?.variables ?? [],
  header: t?.headerVariables?.[0] ?? '',
  media: t?.headerMediaUrl ?? '',
});

/**
 * A Cloud API template being filled in (docs/cloud-api.md): the connection's approved templates, the
 * chosen one's values, and `input`, the send's `template` object once every value is there (else null).
 * Shared by the ticket's template composer and the schedule dialog.
 */
export function useTemplateDraft(whatsappId: number | null | undefined) {
  const templates = useTemplates(whatsappId, true);
  const [draft, setDraft] = useState<Draft>(() => draftOf());
  const reset = useCallback((t?: StoredTemplate | null) => setDraft(draftOf(t)), []);
  const list = templates.data ?? [];
  const chosen = list.find((x) => keyOf(x) === draft.key);
  const needs = useMemo(
    () => (chosen ? templateNeeds(chosen.components) : { body: 0, header: 0, headerMedia: null }),
    [chosen],
  );
  const variables = Array.from({ length: needs.body }, (_, i) => (draft.values[i] ?? '').trim());
  const header = draft.header.trim();
  const media = draft.media.trim();
  const ready =
    Boolean(chosen) &&
    variables.every(Boolean) &&
    (!needs.header || Boolean(header)) &&
    (!needs.headerMedia || /^https?:\/\/\S+$/.test(media));
  const input: TemplateSendInput | null =
    chosen && ready
      ? {
          name: chosen.name,
          language: chosen.language,
          variables,
          headerVariables: needs.header ? [header] : [],
          ...(needs.headerMedia ? { headerMediaUrl: media } : {}),
        }
      : null;
  return {
    loading: templates.isLoading,
    list,
    chosen,
    needs,
    draft,
    setDraft,
    /** Back to nothing chosen, or to a saved template's values. */
    reset,
    input,
    preview: chosen
      ? renderTemplate(chosen.components, {
          variables,
          headerVariables: needs.header && header ? [header] : [],
        })
      : '',
  };
}
export type TemplateDraft = ReturnType<typeof useTemplateDraft>;

/** The picker of approved templates ("name · language"), a field per value, and a WhatsApp-like preview. */
export function TemplateFields({ draft: d, disabled }: { draft: TemplateDraft; disabled?: boolean }) {
  const { t } = useTranslation();
  const { draft, setDraft, needs } = d;
  if (d.loading) return <CircularProgress size={20} sx={{ alignSelf: 'center' }} />;
  if (!d.list.length)
    return (
      <Typography variant="body2" color="text.secondary" data-testid="templates-none">
        {t('templates.window.none')}
      </Typography>
    );
  const values = Array.from({ length: needs.body }, (_, i) => draft.values[i] ?? '');
  return (
    <>
      <TextField
        select
        size="small"
        label={t('templates.picker.label')}
        value={d.chosen ? draft.key : ''}
        disabled={disabled}
        onChange={(e) => setDraft({ key: e.target.value, values: [], header: '', media: '' })}
        slotProps={{ htmlInput: { 'data-testid': 'template-select' } }}
      >
        {d.list.map((x) => (
          <MenuItem key={keyOf(x)} value={keyOf(x)}>
            {x.name} · {x.language}
          </MenuItem>
        ))}
      </TextField>
      {needs.header ? (
        <TextField
          size="small"
          label={t('templates.picker.header')}
          value={draft.header}
          disabled={disabled}
          onChange={(e) => setDraft({ ...draft, header: e.target.value })}
          slotProps={{ htmlInput: { maxLength: 60 } }}
        />
      ) : null}
      {needs.headerMedia ? (
        <TextField
          size="small"
          label={t(`templates.picker.media.${needs.headerMedia}`)}
          placeholder="https://"
          value={draft.media}
          disabled={disabled}
          onChange={(e) => setDraft({ ...draft, media: e.target.value })}
          helperText={t('templates.picker.mediaHelp')}
        />
      ) : null}
      {values.map((v, i) => (
        <TextField
          key={i}
          size="small"
          label={t('templates.picker.variable', { n: i + 1 })}
          value={v}
          disabled={disabled}
          onChange={(e) => {
            const next = [...values];
            next[i] = e.target.value;
            setDraft({ ...draft, values: next });
          }}
          slotProps={{ htmlInput: { maxLength: 1024, 'data-testid': `template-var-${i + 1}` } }}
        />
      ))}
      {d.chosen ? <TemplatePreview text={d.preview} testId="template-preview" /> : null}
    </>
  );
}

/** A template's text as WhatsApp shows it (its bubble colours, bold and italics), under a "Preview" label. */
export function TemplatePreview({ text, testId }: { text: string; testId: string }) {
  const { t } = useTranslation();
  return (
    <Box>
      <Typography variant="caption" color="text.secondary">
        {t('templates.picker.preview')}
      </Typography>
      <Box
        data-testid={testId}
        sx={(theme) => ({
          mt: 0.5,
          p: 1.25,
          borderRadius: 2,
          maxWidth: 420,
          whiteSpace: 'pre-wrap',
          wordBreak: 'break-word',
          fontSize: 14,
          bgcolor: theme.palette.mode === 'dark' ? '#005c4b' : '#d9fdd3',
          color: theme.palette.mode === 'dark' ? '#e9edef' : '#111b21',
        })}
      >
        <WhatsAppText text={text} />
      </Box>
    </Box>
  );
}
