import { useMemo } from 'react';
import { Box, Checkbox, FormControl, ListItemText, MenuItem, Select } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { CHANNEL_KINDS, type ChannelKindName } from '@recado/contracts';
import { useWhatsapps } from '../../api/whatsapps.js';
import { ChannelIcon } from './ConnectionStatus.js';

/** The channels of the company's connections, in CHANNEL_KINDS order (what a channel filter offers). */
export function useCompanyChannels(): ChannelKindName[] {
  const whatsapps = useWhatsapps();
  return useMemo(() => {
    const have = new Set((whatsapps.data ?? []).map((w) => w.channel));
    return CHANNEL_KINDS.filter((c) => have.has(c));
  }, [whatsapps.data]);
}

/**
 * #34.4 The lists' channel filter (GET /tickets?channels=, GET /ticket/kanban?channels=): the channels of the
 * company's connections, several at once; none picked means every channel. Shown once the company has
 * connections of two channels or more (or a choice is set).
 */
export function ChannelFilter({
  value,
  onChange,
  sx,
}: {
  value: ChannelKindName[];
  onChange(v: ChannelKindName[]): void;
  sx?: object;
}) {
  const { t } = useTranslation();
  const channels = useCompanyChannels();
  const options = [...channels, ...value.filter((c) => !channels.includes(c))];
  if (options.length < 2 && value.length === 0) return null;
  const name = (c: string) => t(`connections.channels.${c}`, { defaultValue: c });
  return (
    <FormControl size="small" sx={{ minWidth: 110, maxWidth: 170, ...sx }}>
      <Select<ChannelKindName[]>
        multiple
        displayEmpty
        value={value}
        onChange={(e) => {
          const v = e.target.value;
          onChange((typeof v === 'string' ? v.split(',') : v) as ChannelKindName[]);
        }}
        renderValue={(sel) =>
          sel.length === 0 ? (
            t('channelFilter.all')
          ) : (
            <Box
              component="span"
              sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, verticalAlign: 'middle' }}
            >
              {sel.map((c) => (
                <ChannelIcon key={c} channel={c} size={16} tooltip={false} />
              ))}
              {sel.length === 1 ? name(sel[0]!) : null}
            </Box>
          )
        }
        inputProps={{ 'aria-label': t('channelFilter.label') }}
        data-testid="channel-filter"
        sx={{ fontSize: 14 }}
      >
        {options.map((c) => (
          <MenuItem key={c} value={c} dense data-testid={`channel-filter-${c}`}>
            <Checkbox size="small" checked={value.includes(c)} sx={{ p: 0.5, mr: 1 }} />
            <ChannelIcon channel={c} size={18} tooltip={false} />
            <ListItemText primary={name(c)} sx={{ ml: 1 }} />
          </MenuItem>
        ))}
      </Select>
    </FormControl>
  );
}
