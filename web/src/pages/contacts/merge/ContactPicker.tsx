import { useEffect, useState } from 'react';
import { Autocomplete, TextField } from '@mui/material';
import { formatNumber, type ContactView } from '@recado/contracts';
import { searchContacts } from '../../../api/merge.js';
import { useDebouncedValue } from '../../../components/useDebouncedValue.js';

/** A contact chosen by typing its name or number (3+ characters), the company's contacts searched on the server. */
export function ContactPicker({
  label,
  helperText,
  value,
  onChange,
  exclude,
}: {
  label: string;
  helperText?: string;
  value: ContactView | null;
  onChange(c: ContactView | null): void;
  exclude?: number;
}) {
  const [input, setInput] = useState('');
  const search = useDebouncedValue(input, 300);
  const [options, setOptions] = useState<ContactView[]>([]);
  const [loading, setLoading] = useState(false);
  useEffect(() => {
    if (search.trim().length < 3) return setOptions([]);
    let live = true;
    setLoading(true);
    searchContacts(search.trim())
      .then((page) => live && setOptions(page.contacts.filter((c) => c.id !== exclude)))
      .catch(() => live && setOptions([]))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [search, exclude]);
  return (
    <Autocomplete
      options={options}
      value={value}
      loading={loading}
      filterOptions={(x) => x}
      onChange={(_e, v) => onChange(v)}
      onInputChange={(_e, v) => setInput(v)}
      isOptionEqualToValue={(a, b) => a.id === b.id}
      getOptionLabel={(c) => (c.number ? `${c.name} — ${formatNumber(c.number)}` : c.name)}
      renderInput={(params) => (
        <TextField {...params} label={label} helperText={helperText} autoFocus data-testid="contact-picker" />
      )}
    />
  );
}
