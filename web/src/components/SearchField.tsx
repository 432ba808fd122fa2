import { InputAdornment, TextField, type TextFieldProps } from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import { useTranslation } from 'react-i18next';

/** The search box of list screens; pair it with useDebouncedValue (500 ms). */
export function SearchField({
  value,
  onChange,
  sx,
  ...rest
}: { value: string; onChange(value: string): void } & Omit<TextFieldProps, 'value' | 'onChange'>) {
  const { t } = useTranslation();
  return (
    <TextField
      type="search"
      placeholder={t('common.search')}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      fullWidth={false}
      sx={{ minWidth: { xs: 0, sm: 260 }, flex: { xs: 1, sm: 'none' }, ...sx }}
      slotProps={{
        input: {
          startAdornment: (
            <InputAdornment position="start">
              <SearchIcon fontSize="small" color="action" />
            </InputAdornment>
          ),
        },
        htmlInput: { 'aria-label': t('common.search') },
      }}
      {...rest}
    />
  );
}

export default SearchField;
