import { MenuItem, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { usePlanFlag } from '../../app/guards.js';
import { usePrompts, usePromptsRealtime } from '../../api/prompts.js';

/**
 * The queue dialog's AI prompt choice: '' is none. Without the plan flag useOpenAi the choice is shown
 * disabled (and whatever is stored stays as it is).
 */
export function PromptSelect({ value, onChange }: { value: string; onChange(value: string): void }) {
  const { t } = useTranslation();
  const allowed = usePlanFlag('useOpenAi');
  const list = usePrompts(allowed);
  usePromptsRealtime(allowed);
  const prompts = list.items;
  // A stored id not (yet) in the list keeps a placeholder item so the select never shows an invalid value.
  const known = value === '' || prompts.some((p) => String(p.id) === value);
  return (
    <TextField
      select
      fullWidth
      disabled={!allowed}
      value={allowed ? value : ''}
      onChange={(e) => onChange(e.target.value)}
      label={t('prompts.queueField.label')}
      helperText={allowed ? t('prompts.queueField.help') : t('prompts.queueField.noPlan')}
      slotProps={{
        htmlInput: { 'data-field': 'promptId' },
        // An empty choice reads "Nenhum", as the integration beside it does (not a blank field).
        select: {
          renderValue: (v) =>
            v === ''
              ? t('prompts.queueField.none')
              : (prompts.find((p) => String(p.id) === v)?.name ?? `#${String(v)}`),
          displayEmpty: true,
        },
        inputLabel: { shrink: true },
      }}
    >
      <MenuItem value="">{t('prompts.queueField.none')}</MenuItem>
      {prompts.map((p) => (
        <MenuItem key={p.id} value={String(p.id)} data-testid="queue-prompt-option">
          {p.name}
        </MenuItem>
      ))}
      {!known && allowed ? (
        <MenuItem value={value} disabled>
          {list.isLoading ? t('common.loading') : `#${value}`}
        </MenuItem>
      ) : null}
    </TextField>
  );
}
