import { useMemo } from 'react';
import type { SxProps, Theme } from '@mui/material';
import { LocalizationProvider } from '@mui/x-date-pickers/LocalizationProvider';
import { AdapterDayjs } from '@mui/x-date-pickers/AdapterDayjs';
import { DatePicker } from '@mui/x-date-pickers/DatePicker';
import { DateTimePicker } from '@mui/x-date-pickers/DateTimePicker';
import { enUS, esES, ptBR } from '@mui/x-date-pickers/locales';
import dayjs, { type Dayjs } from 'dayjs';
import 'dayjs/locale/pt-br';
import 'dayjs/locale/es';
import 'dayjs/locale/en';
import { useTranslation } from 'react-i18next';

/** The value as a native input holds it: `YYYY-MM-DD` (date) or `YYYY-MM-DDTHH:mm` (local date and time). */
const FORMATS = { date: 'YYYY-MM-DD', datetime: 'YYYY-MM-DDTHH:mm' } as const;

/** dayjs's locale and the pickers' texts for an interface language. */
function localeFor(lang: string) {
  if (lang.startsWith('pt')) return { adapter: 'pt-br', text: ptBR };
  if (lang.startsWith('es')) return { adapter: 'es', text: esES };
  return { adapter: 'en', text: enUS };
}

export interface DateFieldProps {
  /** `date` for a day, `datetime` for a day and a time. */
  kind: 'date' | 'datetime';
  label: string;
  /** `''` when empty; otherwise the native input's format (FORMATS). */
  value: string;
  onChange: (value: string) => void;
  error?: boolean;
  helperText?: string;
  required?: boolean;
  disabled?: boolean;
  fullWidth?: boolean;
  size?: 'small' | 'medium';
  sx?: SxProps<Theme>;
  /** Put on the field's group (role="group"): tests and the e2e helper find the field by it. */
  testId?: string;
  name?: string;
}

/**
 * The one date and date-time field of the web client (#29.16): the day, month, year and time are shown and
 * typed in the interface language's order and clock (pt and es: 27/11/2026 14:30; en: 11/27/2026 02:30 PM),
 * whatever the browser's locale, with a calendar in the same language. A native date input follows the
 * browser instead. The value stays the native input's string, so forms and APIs do not change.
 */
export function DateField({
  kind,
  label,
  value,
  onChange,
  error,
  helperText,
  required,
  disabled,
  fullWidth,
  size,
  sx,
  testId,
  name,
}: DateFieldProps) {
  const { i18n } = useTranslation();
  const lang = i18n.resolvedLanguage ?? i18n.language;
  const locale = localeFor(lang);
  const format = FORMATS[kind];
  const parsed = useMemo(() => (value ? dayjs(value) : null), [value]);
  const change = (v: Dayjs | null) => {
    if (!v) onChange('');
    else if (v.isValid()) onChange(v.format(format));
  };
  const slotProps = {
    textField: {
      error,
      helperText,
      required,
      fullWidth,
      size,
      sx,
      name,
      inputProps: { 'data-testid': testId ? `${testId}-input` : undefined },
      ...(testId ? { 'data-testid': testId } : {}),
    },
  };
  return (
    <LocalizationProvider
      dateAdapter={AdapterDayjs}
      adapterLocale={locale.adapter}
      localeText={locale.text.components.MuiLocalizationProvider.defaultProps.localeText}
    >
      {kind === 'date' ? (
        <DatePicker
          label={label}
          value={parsed}
          onChange={change}
          disabled={disabled}
          slotProps={slotProps}
        />
      ) : (
        <DateTimePicker
          label={label}
          value={parsed}
          onChange={change}
          disabled={disabled}
          slotProps={slotProps}
        />
      )}
    </LocalizationProvider>
  );
}

/** A period: `from` and `to` days. */
export interface DateRange {
  from: string;
  to: string;
}

/**
 * The from/to day pair of a period filter (the dashboard, the audit log, a flow's stats): two small date
 * fields side by side in the parent's layout; `helperText` goes under `to`; `onChange` gets the whole range.
 */
export function DateRangeFields({
  value,
  onChange,
  labels,
  testIds,
  sx,
  error,
  helperText,
}: {
  value: DateRange;
  onChange(range: DateRange): void;
  labels: DateRange;
  testIds: DateRange;
  sx?: SxProps<Theme>;
  error?: boolean;
  helperText?: string;
}) {
  return (
    <>
      <DateField
        kind="date"
        size="small"
        sx={sx}
        label={labels.from}
        value={value.from}
        onChange={(from) => onChange({ ...value, from })}
        error={error}
        testId={testIds.from}
      />
      <DateField
        kind="date"
        size="small"
        sx={sx}
        label={labels.to}
        value={value.to}
        onChange={(to) => onChange({ ...value, to })}
        error={error}
        helperText={helperText}
        testId={testIds.to}
      />
    </>
  );
}
