import { forwardRef, useId, type ReactNode } from 'react';
import {
  FormControl,
  FormHelperText,
  InputLabel,
  OutlinedInput,
  type OutlinedInputProps,
} from '@mui/material';

export interface OutlinedFieldProps extends Omit<
  OutlinedInputProps,
  'label' | 'inputRef' | 'size' | 'error'
> {
  label: string;
  error?: boolean;
  helperText?: ReactNode;
  size?: 'small' | 'medium';
}

/**
 * An outlined text field that looks like MUI's TextField without its select support: TextField pulls
 * Select, Menu, NativeSelect and the filled/standard inputs into the login route's JavaScript.
 * The ref goes to the <input>, so react-hook-form's register() works as with TextField.
 */
export const OutlinedField = forwardRef<HTMLInputElement, OutlinedFieldProps>(function OutlinedField(
  { label, error, helperText, size = 'medium', id, fullWidth = true, ...input },
  ref,
) {
  const auto = useId();
  const inputId = id ?? auto;
  const helperId = helperText ? `${inputId}-helper` : undefined;
  return (
    <FormControl variant="outlined" fullWidth={fullWidth} error={error} size={size}>
      <InputLabel htmlFor={inputId}>{label}</InputLabel>
      <OutlinedInput {...input} id={inputId} inputRef={ref} label={label} aria-describedby={helperId} />
      {helperText && <FormHelperText id={helperId}>{helperText}</FormHelperText>}
    </FormControl>
  );
});
