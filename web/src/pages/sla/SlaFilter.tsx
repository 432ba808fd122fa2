import { FormControl, MenuItem, Select } from '@mui/material';
import { useSlaT } from './sla-i18n.js';

type Value = '' | 'at_risk' | 'breached';

/** The ticket lists' SLA filter (GET /tickets?sla=at_risk|breached): any, at risk, breached. */
export function SlaFilter({ value, onChange }: { value: Value; onChange(v: Value): void }) {
  const { t } = useSlaT();
  return (
    <FormControl size="small" sx={{ minWidth: 110, maxWidth: 150 }}>
      <Select
        value={value}
        displayEmpty
        onChange={(e) => onChange(e.target.value as Value)}
        inputProps={{ 'aria-label': t('sla:filter.label') }}
        data-testid="sla-filter"
        sx={{ fontSize: 14 }}
      >
        <MenuItem value="" dense>
          {t('sla:filter.all')}
        </MenuItem>
        <MenuItem value="at_risk" dense data-testid="sla-filter-at_risk">
          {t('sla:filter.at_risk')}
        </MenuItem>
        <MenuItem value="breached" dense data-testid="sla-filter-breached">
          {t('sla:filter.breached')}
        </MenuItem>
      </Select>
    </FormControl>
  );
}
