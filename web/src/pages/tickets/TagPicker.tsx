import { useMemo, useState } from 'react';
import { Autocomplete, Box, CircularProgress, TextField, Tooltip, createFilterOptions } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import LocalOfferOutlinedIcon from '@mui/icons-material/LocalOfferOutlined';
import ViewKanbanOutlinedIcon from '@mui/icons-material/ViewKanbanOutlined';
import { useTranslation } from 'react-i18next';
import { TagInput, type Tag, type TicketView } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { viewerOf } from '../../api/tickets.js';
import { useAllTags, useSaveTag, useSyncTicketTags, useTagsRealtime } from '../../api/tags.js';
import { TagChip } from '../tags/TagChip.js';

/** An option of the picker: a tag, or the offer to create one with what was typed. */
type Option = Tag | { create: string };
const isCreate = (o: Option): o is { create: string } => 'create' in o;
const filter = createFilterOptions<Option>({ stringify: (o) => (isCreate(o) ? o.create : o.name) });

/**
 * The tag picker of the chat view (docs/team-tools.md): the ticket's tags as chips, a multi-select of the company's
 * tags that saves the whole set (POST /tags/sync), and "create" for a name no tag has yet. A ticket sits
 * in one kanban lane: choosing a lane tag replaces the ticket's other lane tag.
 */
export function TagPicker({ ticket }: { ticket: TicketView }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const toast = useToast();
  const viewer = useMemo(() => viewerOf(user!), [user]);
  const all = useAllTags();
  useTagsRealtime();
  const sync = useSyncTicketTags(viewer);
  const create = useSaveTag();
  const [input, setInput] = useState('');
  const busy = sync.isPending || create.isPending;

  const options = all.data ?? [];
  const byId = useMemo(() => new Map(options.map((o) => [o.id, o])), [options]);
  // The ticket's tags as full tags (a tag missing from the list still shows with what the ticket has).
  const value: Tag[] = ticket.tags.map(
    (x) =>
      byId.get(x.id) ?? {
        ...x,
        companyId: 0,
        kanban: 0,
        userId: null,
        ticketsCount: 0,
        createdAt: '',
        updatedAt: '',
      },
  );

  const save = async (tags: Tag[]) => {
    try {
      await sync.mutateAsync({ ticketId: ticket.id, tagIds: tags.map((x) => x.id) });
    } catch (err) {
      toast.error(err);
    }
  };

  const onChange = async (next: Option[]) => {
    const created = next.find(isCreate);
    let chosen = next.filter((o): o is Tag => !isCreate(o));
    if (created) {
      try {
        const tag = await create.mutateAsync({ input: { name: created.create.trim() } });
        chosen = [...chosen, tag];
        toast.success('tags.picker.created', { name: tag.name });
      } catch (err) {
        toast.error(err);
        return;
      }
    }
    // The newest lane tag wins: the others leave (one lane per ticket).
    const before = new Set(value.map((x) => x.id));
    const newLane = chosen.find((x) => x.kanban && !before.has(x.id));
    if (newLane) chosen = chosen.filter((x) => !x.kanban || x.id === newLane.id);
    setInput('');
    await save(chosen);
  };

  return (
    <Box
      data-testid="tag-picker"
      sx={{
        display: 'flex',
        alignItems: 'center',
        gap: 1,
        px: 1.5,
        py: 0.5,
        borderBottom: 1,
        borderColor: 'divider',
        bgcolor: 'background.paper',
      }}
    >
      <Tooltip title={t('tags.picker.label')}>
        <LocalOfferOutlinedIcon fontSize="small" color="action" />
      </Tooltip>
      <Autocomplete<Option, true, true, false>
        multiple
        disableClearable
        // Enter takes the first option: an existing tag that matches, or "create" for a new name.
        autoHighlight
        size="small"
        fullWidth
        options={options as Option[]}
        value={value}
        loading={all.isLoading}
        disabled={busy}
        inputValue={input}
        onInputChange={(_e, v, reason) => {
          if (reason !== 'reset') setInput(v);
        }}
        onChange={(_e, next) => void onChange(next)}
        isOptionEqualToValue={(a, b) => !isCreate(a) && !isCreate(b) && a.id === b.id}
        getOptionLabel={(o) => (isCreate(o) ? o.create : o.name)}
        filterOptions={(opts, state) => {
          const found = filter(opts, state);
          const typed = state.inputValue.trim();
          const exists = options.some((o) => o.name.toLowerCase() === typed.toLowerCase());
          // docs/team-tools.md: a tag name has at least 3 characters.
          if (TagInput.shape.name.safeParse(typed).success && !exists) found.push({ create: typed });
          return found;
        }}
        noOptionsText={t('tags.picker.none')}
        loadingText={t('common.loading')}
        renderValue={(tags, getItemProps) =>
          tags.map((tag, index) => {
            const { key, ...itemProps } = getItemProps({ index });
            return isCreate(tag) ? null : (
              <TagChip
                key={key}
                {...itemProps}
                name={tag.name}
                color={tag.color}
                data-testid="ticket-tag"
                data-tag-id={tag.id}
              />
            );
          })
        }
        renderOption={(props, option) => {
          const { key, ...rest } = props as typeof props & { key: string };
          return isCreate(option) ? (
            <li key={`create-${option.create}`} {...rest} data-testid="tag-picker-create">
              <AddIcon fontSize="small" sx={{ mr: 1 }} />
              {t('tags.picker.create', { name: option.create })}
            </li>
          ) : (
            <li key={key} {...rest} data-testid="tag-picker-option">
              <Box
                component="span"
                sx={{
                  width: 12,
                  height: 12,
                  borderRadius: '50%',
                  bgcolor: option.color,
                  mr: 1.25,
                  flexShrink: 0,
                }}
              />
              <Box component="span" sx={{ flex: 1 }}>
                {option.name}
              </Box>
              {option.kanban ? (
                <Tooltip title={t('tags.picker.lane')}>
                  <ViewKanbanOutlinedIcon fontSize="small" color="action" />
                </Tooltip>
              ) : null}
            </li>
          );
        }}
        renderInput={(params) => (
          <TextField
            {...params}
            variant="standard"
            placeholder={value.length ? undefined : t('tags.picker.placeholder')}
            slotProps={{
              ...params.slotProps,
              input: {
                ...params.slotProps.input,
                disableUnderline: true,
                endAdornment: busy ? <CircularProgress size={16} /> : params.slotProps.input.endAdornment,
              } as object,
              htmlInput: {
                ...params.slotProps.htmlInput,
                'aria-label': t('tags.picker.label'),
                'data-testid': 'tag-picker-input',
              },
            }}
          />
        )}
        sx={{ '& .MuiAutocomplete-tag': { my: 0.25 } }}
      />
    </Box>
  );
}

export default TagPicker;
