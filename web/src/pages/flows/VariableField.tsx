import { useRef, useState } from 'react';
import { IconButton, InputAdornment, ListSubheader, Menu, MenuItem, TextField, Tooltip } from '@mui/material';
import DataObjectOutlinedIcon from '@mui/icons-material/DataObjectOutlined';
import { useFlowT } from './flow-i18n.js';

/**
 * A text of a node that may hold variables: a `{ }` button lists what `{{ }}` can read here (the graph's
 * variables, the contact's, the ticket's) and inserts the chosen one where the cursor is.
 */
export function VariableField({
  label,
  value,
  onChange,
  variables,
  multiline = false,
  minRows,
  helperText,
  error,
  field,
  placeholder,
}: {
  label: string;
  value: string;
  onChange(value: string): void;
  variables: string[];
  multiline?: boolean;
  minRows?: number;
  helperText?: string;
  error?: boolean;
  /** data-field of the input (tests). */
  field: string;
  placeholder?: string;
}) {
  const { t } = useFlowT();
  const input = useRef<HTMLInputElement | HTMLTextAreaElement | null>(null);
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const insert = (name: string) => {
    const el = input.current;
    const token = `{{${name}}}`;
    const start = el?.selectionStart ?? value.length;
    const end = el?.selectionEnd ?? value.length;
    const next = value.slice(0, start) + token + value.slice(end);
    onChange(next);
    setAnchor(null);
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(start + token.length, start + token.length);
    });
  };
  return (
    <>
      <TextField
        label={label}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        multiline={multiline}
        minRows={minRows}
        maxRows={multiline ? 10 : undefined}
        helperText={
          helperText ??
          t('panel.variablesHelp', { a: '{{name}}', b: '{{contact.email}}', c: '{{ticket.id}}' })
        }
        error={error}
        placeholder={placeholder}
        inputRef={input}
        slotProps={{
          htmlInput: { 'data-field': field },
          input: {
            endAdornment: (
              <InputAdornment
                position="end"
                sx={multiline ? { alignSelf: 'flex-start', mt: 1.5 } : undefined}
              >
                <Tooltip title={t('panel.insertVariable')}>
                  <IconButton
                    size="small"
                    edge="end"
                    aria-label={t('panel.insertVariable')}
                    onClick={(e) => setAnchor(e.currentTarget)}
                  >
                    <DataObjectOutlinedIcon fontSize="small" />
                  </IconButton>
                </Tooltip>
              </InputAdornment>
            ),
          },
        }}
      />
      <Menu anchorEl={anchor} open={Boolean(anchor)} onClose={() => setAnchor(null)}>
        <ListSubheader>{t('panel.variables')}</ListSubheader>
        {variables.map((v) => (
          <MenuItem key={v} onClick={() => insert(v)} dense sx={{ fontFamily: 'monospace' }}>
            {`{{${v}}}`}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
