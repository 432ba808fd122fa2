import { useMemo, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  FormHelperText,
  IconButton,
  Paper,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import SubdirectoryArrowRightIcon from '@mui/icons-material/SubdirectoryArrowRight';
import { useTranslation } from 'react-i18next';
import type { QueueOption } from '@recado/contracts';
import { ApiError } from '../../api/client.js';
import { useToast } from '../../app/useToast.js';
import {
  childrenOf,
  subtreeIds,
  useDeleteQueueOption,
  useQueueOptions,
  useSaveQueueOption,
} from '../../api/queues.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';

interface Draft {
  key: number;
  parentId: number | null;
}

/** The next free number among siblings, as the server would choose it. */
function nextKey(siblings: QueueOption[]): string {
  const numbers = siblings.map((o) => Number(o.option)).filter((n) => Number.isInteger(n) && n >= 0);
  return String((numbers.length ? Math.max(...numbers) : 0) + 1);
}

function OptionNode({
  queueId,
  option,
  draft,
  depth,
  all,
  drafts,
  onAddChild,
  onDropDraft,
  onAskDelete,
}: {
  queueId: number;
  option?: QueueOption;
  draft?: Draft;
  depth: number;
  all: QueueOption[];
  drafts: Draft[];
  onAddChild(parentId: number): void;
  onDropDraft(key: number): void;
  onAskDelete(option: QueueOption): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const save = useSaveQueueOption();
  const parentId = option ? option.parentId : (draft?.parentId ?? null);
  // A new option takes the next free number, after the drafts opened before it at the same level.
  const [key, setKey] = useState(() => {
    if (option) return option.option;
    const earlier = drafts.filter((d) => d.parentId === parentId).findIndex((d) => d.key === draft?.key);
    return String(Number(nextKey(all.filter((o) => o.parentId === parentId))) + Math.max(0, earlier));
  });
  const [title, setTitle] = useState(option?.title ?? '');
  const [message, setMessage] = useState(option?.message ?? '');
  const [errors, setErrors] = useState<{ key?: string; title?: string }>({});
  const dirty = !option || key !== option.option || title !== option.title || message !== option.message;
  const children = option ? childrenOf(all, option.id) : [];
  const childDrafts = option ? drafts.filter((d) => d.parentId === option.id) : [];

  const submit = async () => {
    const next: typeof errors = {};
    if (!title.trim()) next.title = t('common.required');
    else if (title.trim().length > 100) next.title = t('common.tooLong');
    if (!key.trim()) next.key = t('common.required');
    else if (key.trim().length > 10) next.key = t('common.tooLong');
    setErrors(next);
    if (next.key || next.title) return;
    try {
      if (option)
        await save.mutateAsync({
          id: option.id,
          input: { title: title.trim(), message, option: key.trim() },
        });
      else {
        await save.mutateAsync({
          input: { queueId, parentId, title: title.trim(), message, option: key.trim() },
        });
        if (draft) onDropDraft(draft.key);
      }
      toast.success('queues.options.saved');
    } catch (err) {
      if (err instanceof ApiError && err.code === 'ERR_QUEUE_OPTION_ALREADY_EXISTS')
        setErrors({ key: t('queues.options.keyTaken') });
      toast.error(err);
    }
  };

  return (
    <Box data-testid="queue-option-node" data-title={option?.title ?? ''} data-depth={depth}>
      <Paper
        variant="outlined"
        sx={{
          p: 1.5,
          borderLeft: 3,
          borderLeftColor: depth === 0 ? 'primary.main' : 'secondary.main',
          bgcolor: option ? 'background.paper' : 'action.hover',
        }}
      >
        <Box sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }}>
          {depth > 0 ? <SubdirectoryArrowRightIcon fontSize="small" color="action" sx={{ mt: 1 }} /> : null}
          <TextField
            size="small"
            label={t('queues.options.key')}
            value={key}
            onChange={(e) => {
              setKey(e.target.value);
              setErrors((x) => ({ ...x, key: undefined }));
            }}
            error={Boolean(errors.key)}
            slotProps={{ htmlInput: { maxLength: 10, 'data-field': 'option-key' } }}
            sx={{ width: 76, flexShrink: 0 }}
          />
          <TextField
            size="small"
            label={t('queues.options.title')}
            value={title}
            required
            autoFocus={!option}
            onChange={(e) => {
              setTitle(e.target.value);
              setErrors((x) => ({ ...x, title: undefined }));
            }}
            error={Boolean(errors.title)}
            slotProps={{ htmlInput: { maxLength: 100, 'data-field': 'option-title' } }}
            sx={{ flex: 1, minWidth: 0 }}
          />
          <Stack direction="row" sx={{ flexShrink: 0, pt: 0.25 }}>
            <Tooltip title={t('queues.options.save')}>
              <span>
                <IconButton
                  size="small"
                  color="primary"
                  aria-label={t('queues.options.save')}
                  data-testid="option-save"
                  disabled={!dirty || save.isPending}
                  onClick={() => void submit()}
                >
                  {save.isPending ? <CircularProgress size={18} /> : <CheckIcon fontSize="small" />}
                </IconButton>
              </span>
            </Tooltip>
            {option ? (
              <Tooltip title={t('queues.options.addChild')}>
                <IconButton
                  size="small"
                  aria-label={t('queues.options.addChild')}
                  data-testid="option-add-child"
                  onClick={() => onAddChild(option.id)}
                >
                  <AddIcon fontSize="small" />
                </IconButton>
              </Tooltip>
            ) : null}
            <Tooltip title={option ? t('queues.options.delete') : t('common.cancel')}>
              <IconButton
                size="small"
                aria-label={option ? t('queues.options.delete') : t('common.cancel')}
                data-testid="option-delete"
                onClick={() => (option ? onAskDelete(option) : draft && onDropDraft(draft.key))}
              >
                {option ? <DeleteOutlinedIcon fontSize="small" /> : <CloseIcon fontSize="small" />}
              </IconButton>
            </Tooltip>
          </Stack>
        </Box>
        {errors.key || errors.title ? (
          // Under the row: the key's field is too narrow for a sentence.
          <FormHelperText error sx={{ pl: depth > 0 ? 4.5 : 1, mt: 0.5 }} data-testid="option-error">
            {[errors.key, errors.title].filter(Boolean).join(' · ')}
          </FormHelperText>
        ) : null}
        <Box sx={{ mt: 1.25, pl: depth > 0 ? 3.5 : 0 }}>
          <TextField
            size="small"
            fullWidth
            multiline
            minRows={1}
            maxRows={6}
            label={t('queues.options.message')}
            value={message}
            onChange={(e) => setMessage(e.target.value)}
            slotProps={{ htmlInput: { maxLength: 4000, 'data-field': 'option-message' } }}
          />
        </Box>
      </Paper>
      {children.length || childDrafts.length ? (
        <Stack
          spacing={1}
          sx={{ mt: 1, ml: { xs: 1.5, sm: 3 }, pl: 1.5, borderLeft: 1, borderColor: 'divider' }}
        >
          {children.map((c) => (
            <OptionNode
              key={c.id}
              queueId={queueId}
              option={c}
              depth={depth + 1}
              all={all}
              drafts={drafts}
              onAddChild={onAddChild}
              onDropDraft={onDropDraft}
              onAskDelete={onAskDelete}
            />
          ))}
          {childDrafts.map((d) => (
            <OptionNode
              key={`draft-${d.key}`}
              queueId={queueId}
              draft={d}
              depth={depth + 1}
              all={all}
              drafts={drafts}
              onAddChild={onAddChild}
              onDropDraft={onDropDraft}
              onAskDelete={onAskDelete}
            />
          ))}
        </Stack>
      ) : null}
    </Box>
  );
}

/**
 * The bot's option tree of a queue (docs/bot.md): options and nested sub-options, each with its key,
 * title and message. Every change is saved at once through /queue-options.
 */
export function QueueOptionsEditor({ queueId }: { queueId: number }) {
  const { t } = useTranslation();
  const toast = useToast();
  const options = useQueueOptions(queueId);
  const remove = useDeleteQueueOption();
  const [drafts, setDrafts] = useState<Draft[]>([]);
  const [deleting, setDeleting] = useState<QueueOption | null>(null);
  const all = useMemo(() => options.data ?? [], [options.data]);
  const roots = childrenOf(all, null);
  const rootDrafts = drafts.filter((d) => d.parentId === null);
  const addDraft = (parentId: number | null) =>
    setDrafts((list) => [...list, { key: Date.now() + Math.random(), parentId }]);
  const dropDraft = (key: number) => setDrafts((list) => list.filter((d) => d.key !== key));
  const below = deleting ? subtreeIds(all, deleting.id).size - 1 : 0;

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting);
      // Drafts under the deleted branch have nowhere to go.
      const gone = subtreeIds(all, deleting.id);
      setDrafts((list) => list.filter((d) => d.parentId === null || !gone.has(d.parentId)));
      toast.success('queues.options.deleted');
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  if (options.isLoading)
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', py: 3 }}>
        <CircularProgress size={26} />
      </Box>
    );
  if (options.isError) return <Alert severity="error">{t('queues.options.loadError')}</Alert>;

  return (
    <Box data-testid="queue-options-editor">
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
        {t('queues.options.intro')}
      </Typography>
      <Stack spacing={1}>
        {roots.map((o) => (
          <OptionNode
            key={o.id}
            queueId={queueId}
            option={o}
            depth={0}
            all={all}
            drafts={drafts}
            onAddChild={addDraft}
            onDropDraft={dropDraft}
            onAskDelete={setDeleting}
          />
        ))}
        {rootDrafts.map((d) => (
          <OptionNode
            key={`draft-${d.key}`}
            queueId={queueId}
            draft={d}
            depth={0}
            all={all}
            drafts={drafts}
            onAddChild={addDraft}
            onDropDraft={dropDraft}
            onAskDelete={setDeleting}
          />
        ))}
        {roots.length === 0 && rootDrafts.length === 0 ? (
          <Typography color="text.secondary" sx={{ py: 1, textAlign: 'center' }}>
            {t('queues.options.empty')}
          </Typography>
        ) : null}
      </Stack>
      <Button
        startIcon={<AddIcon />}
        onClick={() => addDraft(null)}
        sx={{ mt: 1.5 }}
        data-testid="option-add-root"
      >
        {t('queues.options.add')}
      </Button>
      <ConfirmationDialog
        open={deleting !== null}
        title={t('queues.options.deleteTitle', { title: deleting?.title ?? '' })}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
      >
        {below > 0
          ? t('queues.options.deleteWithChildren', { count: below })
          : t('queues.options.deleteMessage')}
      </ConfirmationDialog>
    </Box>
  );
}
