import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  Autocomplete,
  Box,
  Button,
  FormHelperText,
  IconButton,
  Menu,
  MenuItem,
  Paper,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ArrowUpwardIcon from '@mui/icons-material/ArrowUpward';
import ArrowDownwardIcon from '@mui/icons-material/ArrowDownward';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import {
  MACRO_ACTION_TYPES,
  MACRO_MAX_ACTIONS,
  MACRO_VARIABLES,
  type MacroAction,
  type MacroActionType,
} from '@recado/contracts';
import { api } from '../../api/client.js';
import { useAllTags } from '../../api/tags.js';
import { useQuickReplies } from '../../api/quick-messages.js';
import { useQueueOptions, useUserOptions } from '../../api/tickets.js';
import { useAuth } from '../../app/auth.js';
import { useMacrosT } from './macros-i18n.js';

/** An action being edited: any of its fields may still be missing (the server's schema checks them). */
export type DraftAction = { type: MacroActionType } & Record<string, unknown>;

const fresh = (type: MacroActionType): DraftAction => {
  switch (type) {
    case 'send_text':
    case 'add_note':
      return { type, text: '' };
    case 'add_tags':
    case 'remove_tags':
      return { type, tagIds: [] };
    case 'set_priority':
      return { type, priority: 2 };
    case 'snooze':
      return { type, minutes: 60 };
    default:
      return { type };
  }
};

/** The closing reasons (#32.3), when that module answers; none otherwise. */
function useClosingReasonOptions(enabled: boolean) {
  return useQuery({
    queryKey: ['closing-reasons', 'options'],
    queryFn: async () => {
      const res = await api.get<unknown>('/closing-reasons').catch(() => []);
      const list = Array.isArray(res) ? res : ((res as { records?: unknown[] }).records ?? []);
      return list as { id: number; name: string }[];
    },
    enabled,
    staleTime: 60_000,
    retry: false,
  });
}

/** The ordered action list of a macro: add, change, move up and down, remove (at most 20). */
export function MacroActionsEditor({
  value,
  onChange,
  error,
}: {
  value: DraftAction[];
  onChange(next: DraftAction[]): void;
  error?: string;
}) {
  const { t } = useMacrosT();
  const { user } = useAuth();
  const [menu, setMenu] = useState<HTMLElement | null>(null);
  const tags = useAllTags();
  const quick = useQuickReplies(true);
  const queues = useQueueOptions(user);
  const users = useUserOptions();
  const reasons = useClosingReasonOptions(value.some((a) => a.type === 'resolve'));

  const set = (i: number, patch: Record<string, unknown>) =>
    onChange(value.map((a, j) => (j === i ? { ...a, ...patch } : a)));
  const move = (i: number, by: number) => {
    const next = [...value];
    const [a] = next.splice(i, 1);
    next.splice(i + by, 0, a!);
    onChange(next);
  };

  const pick = <O extends { id: number }>(
    i: number,
    key: string,
    options: O[],
    label: string,
    text: (o: O) => string,
  ) => {
    const current = value[i]![key] as number | null | undefined;
    return (
      <Autocomplete
        size="small"
        options={options}
        getOptionLabel={text}
        value={options.find((o) => o.id === current) ?? null}
        onChange={(_, o) => set(i, { [key]: o?.id ?? null })}
        isOptionEqualToValue={(a, b) => a.id === b.id}
        renderInput={(p) => (
          <TextField
            {...p}
            label={t(label)}
            slotProps={{ ...p.slotProps, htmlInput: { ...p.slotProps.htmlInput, 'data-field': key } }}
          />
        )}
        sx={{ flex: 1, minWidth: 160 }}
      />
    );
  };

  const fields = (a: DraftAction, i: number) => {
    switch (a.type) {
      case 'send_text':
      case 'add_note':
        return (
          <TextField
            size="small"
            multiline
            minRows={2}
            maxRows={6}
            fullWidth
            label={t('macros:macros.field.text')}
            value={(a.text as string) ?? ''}
            onChange={(e) => set(i, { text: e.target.value })}
            helperText={`${t('macros:macros.variablesHint')}: ${MACRO_VARIABLES.filter(
              (v) => v !== 'ticket.id',
            )
              .map((v) => `{{${v}}}`)
              .join(' ')}`}
            slotProps={{ htmlInput: { maxLength: 4000, 'data-field': 'text' } }}
          />
        );
      case 'send_quick_message':
        return pick(
          i,
          'quickMessageId',
          quick.data ?? [],
          'macros:macros.field.quickMessage',
          (q) => `/${q.shortcode}`,
        );
      case 'add_tags':
      case 'remove_tags': {
        const ids = (a.tagIds as number[]) ?? [];
        const options = tags.data ?? [];
        return (
          <Autocomplete
            multiple
            size="small"
            options={options}
            getOptionLabel={(o) => o.name}
            value={options.filter((o) => ids.includes(o.id))}
            onChange={(_, list) => set(i, { tagIds: list.map((o) => o.id) })}
            isOptionEqualToValue={(x, y) => x.id === y.id}
            renderInput={(p) => (
              <TextField
                {...p}
                label={t('macros:macros.field.tags')}
                slotProps={{
                  ...p.slotProps,
                  htmlInput: { ...p.slotProps.htmlInput, 'data-field': 'tagIds' },
                }}
              />
            )}
            sx={{ flex: 1 }}
          />
        );
      }
      case 'set_priority':
        return (
          <TextField
            select
            size="small"
            label={t('macros:macros.field.priority')}
            value={(a.priority as number) ?? 1}
            onChange={(e) => set(i, { priority: Number(e.target.value) })}
            sx={{ minWidth: 160 }}
            slotProps={{ htmlInput: { 'data-field': 'priority' } }}
          >
            {[0, 1, 2, 3].map((p) => (
              <MenuItem key={p} value={p}>
                {t(`macros:macros.priority.${p}`)}
              </MenuItem>
            ))}
          </TextField>
        );
      case 'transfer':
        return (
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ flex: 1 }}>
            {pick(i, 'queueId', queues ?? [], 'macros:macros.field.queue', (q) => q.name)}
            {pick(i, 'userId', users.data ?? [], 'macros:macros.field.user', (u) => u.name)}
          </Stack>
        );
      case 'snooze':
        return (
          <TextField
            size="small"
            type="number"
            label={t('macros:macros.field.minutes')}
            value={(a.minutes as number) ?? ''}
            onChange={(e) => set(i, { minutes: e.target.value === '' ? undefined : Number(e.target.value) })}
            sx={{ width: 160 }}
            slotProps={{ htmlInput: { min: 1, 'data-field': 'minutes' } }}
          />
        );
      case 'resolve':
        return (
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ flex: 1 }}>
            {reasons.data?.length
              ? pick(i, 'closingReasonId', reasons.data, 'macros:macros.field.closingReason', (r) => r.name)
              : null}
            <TextField
              size="small"
              type="number"
              label={t('macros:macros.field.saleValue')}
              value={(a.saleValue as number | null | undefined) ?? ''}
              onChange={(e) => set(i, { saleValue: e.target.value === '' ? null : Number(e.target.value) })}
              sx={{ width: 160 }}
              slotProps={{ htmlInput: { min: 0, step: '0.01', 'data-field': 'saleValue' } }}
            />
          </Stack>
        );
    }
  };

  return (
    <Box>
      <Typography variant="subtitle2" sx={{ mb: 1 }}>
        {t('macros:macros.actions')}
      </Typography>
      <Stack spacing={1} data-testid="macro-actions">
        {value.map((a, i) => (
          <Paper key={i} variant="outlined" sx={{ p: 1 }} data-testid="macro-action" data-type={a.type}>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5, mb: 1 }}>
              <Typography variant="body2" sx={{ fontWeight: 600, flex: 1 }}>
                {i + 1}. {t(`macros:macros.type.${a.type}`)}
              </Typography>
              <Tooltip title={t('macros:macros.moveUp')}>
                <span>
                  <IconButton
                    size="small"
                    disabled={i === 0}
                    onClick={() => move(i, -1)}
                    aria-label={t('macros:macros.moveUp')}
                  >
                    <ArrowUpwardIcon fontSize="small" />
                  </IconButton>
                </span>
              </Tooltip>
              <Tooltip title={t('macros:macros.moveDown')}>
                <span>
                  <IconButton
                    size="small"
                    disabled={i === value.length - 1}
                    onClick={() => move(i, 1)}
                    aria-label={t('macros:macros.moveDown')}
                  >
                    <ArrowDownwardIcon fontSize="small" />
                  </IconButton>
                </span>
              </Tooltip>
              <Tooltip title={t('macros:macros.removeAction')}>
                <IconButton
                  size="small"
                  onClick={() => onChange(value.filter((_, j) => j !== i))}
                  aria-label={t('macros:macros.removeAction')}
                >
                  <DeleteOutlineIcon fontSize="small" />
                </IconButton>
              </Tooltip>
            </Box>
            <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>{fields(a, i)}</Box>
          </Paper>
        ))}
      </Stack>
      {error ? <FormHelperText error>{error}</FormHelperText> : null}
      <Button
        size="small"
        startIcon={<AddIcon />}
        onClick={(e) => setMenu(e.currentTarget)}
        disabled={value.length >= MACRO_MAX_ACTIONS}
        sx={{ mt: 1 }}
        data-testid="macro-add-action"
      >
        {t('macros:macros.addAction')}
      </Button>
      <Menu anchorEl={menu} open={Boolean(menu)} onClose={() => setMenu(null)}>
        {MACRO_ACTION_TYPES.map((type) => (
          <MenuItem
            key={type}
            data-type={type}
            onClick={() => {
              setMenu(null);
              onChange([...value, fresh(type)]);
            }}
          >
            {t(`macros:macros.type.${type}`)}
          </MenuItem>
        ))}
      </Menu>
    </Box>
  );
}

/** What the editor holds, as the API takes it (empty optional fields dropped). */
export function toActions(list: DraftAction[]): MacroAction[] {
  return list.map((a) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(a)) if (v !== undefined && v !== null && v !== '') out[k] = v;
    return out as MacroAction;
  });
}
