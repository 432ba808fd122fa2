import { useState } from 'react';
import { Box, Button, Chip, MenuItem, Popover, Stack, TextField } from '@mui/material';
import FilterListIcon from '@mui/icons-material/FilterList';
import { checkCustomFieldValue, type CustomFieldEntity, type CustomFieldValue } from '@recado/contracts';
import { useCustomFields } from '../../api/custom-fields.js';
import { CustomFieldsEditor, type RawCustomFields } from './CustomFieldValues.js';
import { useCustomFieldsT } from './custom-fields-i18n.js';

export type CustomFieldFilterValue = Record<string, CustomFieldValue>;

/**
 * #32.7 A list's custom-field filter: pick a field and a value (typed input); the active filter shows as a
 * chip that clears it. Sent as `customFields={"key": value}`; nothing shows while there are no fields.
 */
export function CustomFieldFilter({
  entity,
  value,
  onChange,
}: {
  entity: CustomFieldEntity;
  value: CustomFieldFilterValue | null;
  onChange(next: CustomFieldFilterValue | null): void;
}) {
  const { t } = useCustomFieldsT();
  const { fields } = useCustomFields(entity);
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [key, setKey] = useState('');
  const [raw, setRaw] = useState<RawCustomFields>({});
  const [error, setError] = useState<string | null>(null);
  if (!fields.length) return null;
  const def = fields.find((f) => f.key === key);
  const apply = () => {
    if (!def) return;
    const v = raw[def.key] ?? (def.type === 'boolean' ? false : '');
    const checked = checkCustomFieldValue(def, typeof v === 'string' ? v.trim() : v);
    if (!checked.ok) return setError('customFields:values.invalid');
    onChange({ [def.key]: checked.value });
    setAnchor(null);
  };
  const active = value ? Object.entries(value)[0] : undefined;
  const activeDef = active ? fields.find((f) => f.key === active[0]) : undefined;
  const shown = (v: CustomFieldValue) =>
    typeof v === 'boolean' ? t(v ? 'customFields:values.yes' : 'customFields:values.no') : String(v);
  return (
    <>
      {active ? (
        <Chip
          color="primary"
          variant="outlined"
          icon={<FilterListIcon />}
          label={t('customFields:filter.active', {
            label: activeDef?.label ?? active[0],
            value: shown(active[1]),
          })}
          onDelete={() => onChange(null)}
          onClick={(e) => setAnchor(e.currentTarget)}
          data-testid={`${entity}-cf-filter-chip`}
          sx={{ maxWidth: 260 }}
        />
      ) : (
        <Button
          size="small"
          variant="outlined"
          startIcon={<FilterListIcon />}
          onClick={(e) => {
            setKey(fields[0]!.key);
            setRaw({});
            setError(null);
            setAnchor(e.currentTarget);
          }}
          data-testid={`${entity}-cf-filter`}
          sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
        >
          {t('customFields:filter.button')}
        </Button>
      )}
      <Popover
        open={Boolean(anchor)}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'left' }}
        slotProps={{ paper: { sx: { width: 'min(320px, calc(100vw - 24px))', p: 2 } } }}
      >
        <Box component="form" onSubmit={(e) => (e.preventDefault(), apply())}>
          <Stack spacing={1.5}>
            <TextField
              select
              size="small"
              label={t('customFields:filter.field')}
              value={key}
              onChange={(e) => {
                setKey(e.target.value);
                setRaw({});
                setError(null);
              }}
              slotProps={{ htmlInput: { 'data-testid': 'cf-filter-field' } }}
            >
              {fields.map((f) => (
                <MenuItem key={f.key} value={f.key}>
                  {f.label}
                </MenuItem>
              ))}
            </TextField>
            {def ? (
              <CustomFieldsEditor
                fields={[{ ...def, required: false }]}
                value={raw}
                onChange={setRaw}
                errors={error ? { [def.key]: error } : {}}
              />
            ) : null}
            <Stack direction="row" sx={{ justifyContent: 'flex-end', gap: 1 }}>
              {value ? (
                <Button
                  onClick={() => {
                    onChange(null);
                    setAnchor(null);
                  }}
                >
                  {t('customFields:filter.clear')}
                </Button>
              ) : null}
              <Button type="submit" variant="contained" data-testid="cf-filter-apply">
                {t('customFields:filter.apply')}
              </Button>
            </Stack>
          </Stack>
        </Box>
      </Popover>
    </>
  );
}
