import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import {
  Box,
  Button,
  Chip,
  IconButton,
  List,
  ListItem,
  Paper,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import AddRounded from '@mui/icons-material/AddRounded';
import CheckRounded from '@mui/icons-material/CheckRounded';
import ChecklistRounded from '@mui/icons-material/ChecklistRounded';
import CloseRounded from '@mui/icons-material/CloseRounded';
import DeleteOutlineRounded from '@mui/icons-material/DeleteOutlineRounded';
import EditOutlined from '@mui/icons-material/EditOutlined';
import LockOutlined from '@mui/icons-material/LockOutlined';
import { useTranslation } from 'react-i18next';
import { TODO_KEY, addTask, deleteTask, editTask, loadTasks, saveTasks, type Task } from './todo-store.js';
import { formatDateTime } from '../../i18n/format.js';

/** The tasks in local storage, kept in step with other tabs of the same browser. */
function useStoredTasks() {
  const [tasks, setTasks] = useState<Task[]>(() => loadTasks());
  useEffect(() => {
    const onStorage = (e: StorageEvent) => {
      if (e.key === TODO_KEY || e.key === null) setTasks(loadTasks());
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);
  const commit = useCallback((next: Task[]) => {
    saveTasks(next);
    setTasks(next);
  }, []);
  return [tasks, commit] as const;
}

function TaskRow({
  task,
  editing,
  format,
  onEdit,
  onSave,
  onCancel,
  onDelete,
}: {
  task: Task;
  editing: boolean;
  format(iso: string): string;
  onEdit(): void;
  onSave(text: string): void;
  onCancel(): void;
  onDelete(): void;
}) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState(task.text);
  useEffect(() => {
    if (editing) setDraft(task.text);
  }, [editing, task.text]);

  const edited = task.updatedAt !== task.createdAt;
  return (
    <ListItem
      data-testid="todo-item"
      divider
      sx={{
        py: 1.25,
        gap: 1,
        alignItems: 'flex-start',
        transition: 'background-color 150ms',
        '&:hover': { bgcolor: 'action.hover' },
      }}
    >
      {editing ? (
        <>
          <TextField
            autoFocus
            multiline
            maxRows={6}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e: KeyboardEvent) => {
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                onSave(draft);
              } else if (e.key === 'Escape') {
                e.preventDefault();
                onCancel();
              }
            }}
            onFocus={(e) => {
              const el = e.target as HTMLTextAreaElement;
              el.setSelectionRange(el.value.length, el.value.length);
            }}
            slotProps={{ htmlInput: { 'aria-label': t('todo.editLabel') } }}
          />
          <Stack direction="row" sx={{ flexShrink: 0 }}>
            <Tooltip title={t('todo.save')}>
              <span>
                <IconButton
                  color="primary"
                  aria-label={t('todo.save')}
                  disabled={!draft.trim()}
                  onClick={() => onSave(draft)}
                >
                  <CheckRounded />
                </IconButton>
              </span>
            </Tooltip>
            <Tooltip title={t('todo.cancel')}>
              <IconButton aria-label={t('todo.cancel')} onClick={onCancel}>
                <CloseRounded />
              </IconButton>
            </Tooltip>
          </Stack>
        </>
      ) : (
        <>
          <Box sx={{ flex: 1, minWidth: 0 }}>
            <Typography
              data-testid="todo-text"
              sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', lineHeight: 1.45 }}
            >
              {task.text}
            </Typography>
            <Typography variant="caption" color="text.secondary" component="div" sx={{ mt: 0.25 }}>
              <Box component="time" dateTime={task.createdAt} sx={{ whiteSpace: 'nowrap' }}>
                {t('todo.created', { date: format(task.createdAt) })}
              </Box>
              {edited && (
                <>
                  {' · '}
                  <Box component="time" dateTime={task.updatedAt} sx={{ whiteSpace: 'nowrap' }}>
                    {t('todo.updated', { date: format(task.updatedAt) })}
                  </Box>
                </>
              )}
            </Typography>
          </Box>
          <Stack direction="row" sx={{ flexShrink: 0 }}>
            <Tooltip title={t('todo.edit')}>
              <IconButton size="small" aria-label={t('todo.edit')} onClick={onEdit}>
                <EditOutlined fontSize="small" />
              </IconButton>
            </Tooltip>
            <Tooltip title={t('todo.delete')}>
              <IconButton
                size="small"
                aria-label={t('todo.delete')}
                onClick={onDelete}
                sx={{ '&:hover': { color: 'error.main' } }}
              >
                <DeleteOutlineRounded fontSize="small" />
              </IconButton>
            </Tooltip>
          </Stack>
        </>
      )}
    </ListItem>
  );
}

export default function TodoListPage() {
  const { t, i18n } = useTranslation();
  const [tasks, commit] = useStoredTasks();
  const [text, setText] = useState('');
  const [editing, setEditing] = useState<number | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const lang = i18n.resolvedLanguage ?? i18n.language;
  const format = useMemo(() => (iso: string) => formatDateTime(iso, lang) || iso, [lang]);

  const add = () => {
    const next = addTask(tasks, text);
    if (next !== tasks) commit(next);
    setText('');
    input.current?.focus();
  };

  return (
    <Box sx={{ p: { xs: 2, sm: 3 }, maxWidth: 760, mx: 'auto' }}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'flex-start', mb: 3 }}>
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
            {t('todo.title')}
          </Typography>
          <Typography color="text.secondary" sx={{ display: 'flex', alignItems: 'flex-start', gap: 0.75 }}>
            <LockOutlined sx={{ fontSize: 16, mt: '4px', flexShrink: 0 }} />
            {t('todo.subtitle')}
          </Typography>
        </Box>
        {tasks.length > 0 && (
          <Chip
            data-testid="todo-count"
            label={t('todo.count', { count: tasks.length })}
            variant="outlined"
            sx={{ mt: 0.5 }}
          />
        )}
      </Stack>

      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <Box
          component="form"
          onSubmit={(e) => {
            e.preventDefault();
            add();
          }}
          sx={{ display: 'flex', gap: 1, p: 2, borderBottom: 1, borderColor: 'divider' }}
        >
          <TextField
            inputRef={input}
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={t('todo.placeholder')}
            autoComplete="off"
            slotProps={{ htmlInput: { 'aria-label': t('todo.placeholder'), maxLength: 1000 } }}
          />
          <Button type="submit" variant="contained" startIcon={<AddRounded />} sx={{ flexShrink: 0 }}>
            {t('todo.add')}
          </Button>
        </Box>

        {tasks.length === 0 ? (
          <Box sx={{ py: 7, px: 3, textAlign: 'center' }} data-testid="todo-empty">
            <ChecklistRounded sx={{ fontSize: 52, color: 'text.disabled', mb: 1 }} />
            <Typography variant="subtitle1" sx={{ fontWeight: 600 }}>
              {t('todo.empty')}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {t('todo.emptyHint')}
            </Typography>
          </Box>
        ) : (
          <List disablePadding sx={{ '& > li:last-of-type': { borderBottom: 0 } }}>
            {tasks.map((task, index) => (
              <TaskRow
                key={`${task.createdAt}-${index}`}
                task={task}
                editing={editing === index}
                format={format}
                onEdit={() => setEditing(index)}
                onCancel={() => setEditing(null)}
                onSave={(value) => {
                  if (!value.trim()) return;
                  const next = editTask(tasks, index, value);
                  if (next !== tasks) commit(next);
                  setEditing(null);
                }}
                onDelete={() => {
                  commit(deleteTask(tasks, index));
                  setEditing((e) => (e === null || e < index ? e : e === index ? null : e - 1));
                }}
              />
            ))}
          </List>
        )}
      </Paper>
    </Box>
  );
}
