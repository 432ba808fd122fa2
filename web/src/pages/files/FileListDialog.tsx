import { useEffect, useRef, useState } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Box, Button, Chip, Divider, IconButton, Stack, TextField, Tooltip, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import { useTranslation } from 'react-i18next';
import {
  FILE_LIST_ACCEPT,
  FILE_LIST_TYPES,
  FileListInput,
  MAX_FILE_LIST_OPTIONS,
  MAX_FILE_LIST_UPLOAD_BYTES,
  mediaKindOf,
  type FileList,
} from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useSaveFileList, type OptionDraft } from '../../api/files.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';

interface Form {
  name: string;
  message: string;
}
const schema = FileListInput.pick({ name: true, message: true });

/** A draft row with what it shows: the stored file, or the one chosen now. */
interface Row extends OptionDraft {
  key: string;
  stored?: { file: string; mediaType: string };
}

let seq = 0;
const rowsOf = (list: FileList | null): Row[] =>
  list?.options.map((o) => ({
    key: `o${o.id}`,
    id: o.id,
    name: o.name,
    stored: o.path ? { file: o.file, mediaType: o.mediaType } : undefined,
  })) ?? [];

const extOf = (name: string) => {
  const i = name.lastIndexOf('.');
  return i >= 0 ? name.slice(i).toLowerCase() : '';
};

/** Add or edit a file list: name, message, and options each with a name and one file. */
export function FileListDialog({
  open,
  list,
  onClose,
}: {
  open: boolean;
  list: FileList | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const save = useSaveFileList();
  const [rows, setRows] = useState<Row[]>(rowsOf(list));
  const [rowErrors, setRowErrors] = useState<Record<string, boolean>>({});
  const pickFor = useRef<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const { control, handleSubmit, reset, formState } = useForm<Form>({
    resolver: zodResolver(schema) as unknown as Resolver<Form>,
    defaultValues: { name: list?.name ?? '', message: list?.message ?? '' },
  });
  useEffect(() => {
    if (!open) return;
    reset({ name: list?.name ?? '', message: list?.message ?? '' });
    setRows(rowsOf(list));
    setRowErrors({});
  }, [open, list, reset]);

  const patch = (key: string, change: Partial<Row>) =>
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...change } : r)));

  const onFile = (file: File | undefined) => {
    const key = pickFor.current;
    if (fileInput.current) fileInput.current.value = '';
    if (!file || !key) return;
    if (!FILE_LIST_TYPES[extOf(file.name)]) return void toast.warning('files.typeNotAllowed');
    if (file.size > MAX_FILE_LIST_UPLOAD_BYTES) return void toast.warning('files.tooLarge');
    setRows((rs) =>
      rs.map((r) =>
        r.key === key ? { ...r, file, name: r.name || file.name.replace(/\.[^.]+$/, '').slice(0, 100) } : r,
      ),
    );
  };

  const submit = handleSubmit(async (values) => {
    const bad = Object.fromEntries(rows.filter((r) => !r.name.trim()).map((r) => [r.key, true]));
    setRowErrors(bad);
    if (Object.keys(bad).length) return;
    try {
      await save.mutateAsync({
        id: list?.id,
        input: values,
        options: rows.map((r) => ({ id: r.id, name: r.name.trim(), file: r.file })),
      });
      toast.success('files.saved');
      onClose();
    } catch (err) {
      toast.error(err);
    }
  });

  return (
    <FormDialog
      open={open}
      title={t(list ? 'files.editTitle' : 'files.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
      maxWidth="md"
    >
      <Controller
        name="name"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            label={t('files.name')}
            autoFocus
            required
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
            slotProps={{ htmlInput: { 'data-field': 'name' } }}
          />
        )}
      />
      <Controller
        name="message"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            label={t('files.message')}
            required
            multiline
            minRows={3}
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
            slotProps={{ htmlInput: { 'data-field': 'message' } }}
          />
        )}
      />
      <Divider />
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between' }}>
        <Typography variant="subtitle2">{t('files.options')}</Typography>
        <Typography variant="caption" color="text.secondary">
          {t('files.allowed')}
        </Typography>
      </Box>
      <input
        ref={fileInput}
        type="file"
        hidden
        accept={FILE_LIST_ACCEPT}
        onChange={(e) => onFile(e.target.files?.[0])}
        data-testid="file-option-input"
      />
      {rows.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {t('files.noOptions')}
        </Typography>
      ) : null}
      {rows.map((r, index) => {
        const shown = r.file
          ? { file: r.file.name, mediaType: FILE_LIST_TYPES[extOf(r.file.name)] ?? '' }
          : r.stored;
        return (
          <Stack
            key={r.key}
            direction={{ xs: 'column', sm: 'row' }}
            spacing={1}
            sx={{ alignItems: { sm: 'flex-start' } }}
            data-testid="file-option-row"
          >
            <TextField
              label={t('files.optionName', { n: index + 1 })}
              value={r.name}
              onChange={(e) => patch(r.key, { name: e.target.value.slice(0, 100) })}
              error={Boolean(rowErrors[r.key])}
              helperText={rowErrors[r.key] ? t('common.required') : undefined}
              sx={{ flex: 1 }}
              size="small"
            />
            <Box sx={{ flex: 1, display: 'flex', alignItems: 'center', gap: 1, minHeight: 40, minWidth: 0 }}>
              {shown ? (
                <Chip
                  size="small"
                  variant={r.file ? 'filled' : 'outlined'}
                  color={r.file ? 'primary' : 'default'}
                  label={`${shown.file} · ${t(`files.kinds.${mediaKindOf(shown.mediaType)}`)}`}
                  sx={{ maxWidth: '100%' }}
                  data-testid="file-option-file"
                />
              ) : (
                <Typography variant="body2" color="text.secondary">
                  {t('files.noFile')}
                </Typography>
              )}
            </Box>
            <Box sx={{ display: 'flex', gap: 0.5 }}>
              <Button
                size="small"
                variant="outlined"
                startIcon={<AttachFileIcon />}
                onClick={() => {
                  pickFor.current = r.key;
                  fileInput.current?.click();
                }}
                sx={{ whiteSpace: 'nowrap' }}
              >
                {t(shown ? 'files.replaceFile' : 'files.chooseFile')}
              </Button>
              <Tooltip title={t('files.removeOption')}>
                <IconButton
                  size="small"
                  aria-label={t('files.removeOption')}
                  onClick={() => setRows((rs) => rs.filter((x) => x.key !== r.key))}
                >
                  <DeleteOutlinedIcon fontSize="small" />
                </IconButton>
              </Tooltip>
            </Box>
          </Stack>
        );
      })}
      <Box>
        <Button
          startIcon={<AddIcon />}
          disabled={rows.length >= MAX_FILE_LIST_OPTIONS}
          onClick={() => setRows((rs) => [...rs, { key: `n${++seq}`, name: '' }])}
          data-testid="file-option-add"
        >
          {t('files.addOption')}
        </Button>
      </Box>
    </FormDialog>
  );
}

export default FileListDialog;
