import { useEffect, useRef, useState } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { Box, Button, Chip, FormControlLabel, MenuItem, Switch, TextField, Typography } from '@mui/material';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import { useTranslation } from 'react-i18next';
import {
  ANNOUNCEMENT_MEDIA_EXTENSIONS,
  ANNOUNCEMENT_TEXT_MAX,
  ANNOUNCEMENT_TITLE_MAX,
  type Announcement,
} from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import { useAnnouncementMedia, useSaveAnnouncement } from '../../api/announcements.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';
import { PRIORITIES, PriorityChip } from './announcement-ui.js';

const schema = z.object({
  title: z.string().trim().min(1).max(ANNOUNCEMENT_TITLE_MAX),
  text: z.string().trim().min(1).max(ANNOUNCEMENT_TEXT_MAX),
  priority: z.number().int().min(1).max(3),
  status: z.boolean(),
});
type Form = z.infer<typeof schema>;

const valuesOf = (a: Announcement | null): Form => ({
  title: a?.title ?? '',
  text: a?.text ?? '',
  priority: a?.priority ?? 3,
  status: a?.status ?? true,
});

const ACCEPT = ANNOUNCEMENT_MEDIA_EXTENSIONS.map((e) => `.${e}`).join(',');
const acceptable = (f: File) =>
  (ANNOUNCEMENT_MEDIA_EXTENSIONS as readonly string[]).includes(f.name.split('.').pop()?.toLowerCase() ?? '');

/** Add or edit an announcement: title, text, priority, status and an optional image (.png, .jpg, .jpeg). */
export function AnnouncementDialog({
  open,
  record,
  onClose,
}: {
  open: boolean;
  record: Announcement | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const save = useSaveAnnouncement();
  const media = useAnnouncementMedia();
  const fileInput = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [dropMedia, setDropMedia] = useState(false);
  const [fileError, setFileError] = useState(false);
  const { control, handleSubmit, reset, formState } = useForm<Form>({
    resolver: zodResolver(schema) as unknown as Resolver<Form>,
    defaultValues: valuesOf(record),
  });

  useEffect(() => {
    if (!open) return;
    reset(valuesOf(record));
    setFile(null);
    setDropMedia(false);
    setFileError(false);
  }, [open, record, reset]);

  const submit = handleSubmit(async (values) => {
    try {
      const saved = await save.mutateAsync({ id: record?.id, input: values });
      if (file) await media.upload.mutateAsync({ id: saved.id, file });
      else if (dropMedia && record?.mediaPath) await media.remove.mutateAsync(saved.id);
      toast.success('announcements.saved');
      onClose();
    } catch (err) {
      toast.error(err);
    }
  });

  const currentMedia = file?.name ?? (dropMedia ? null : (record?.mediaName ?? null));
  return (
    <FormDialog
      open={open}
      title={t(record ? 'announcements.editTitle' : 'announcements.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
    >
      <Controller
        name="title"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            label={t('announcements.titleField')}
            autoFocus
            required
            autoComplete="off"
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
            slotProps={{
              htmlInput: { maxLength: ANNOUNCEMENT_TITLE_MAX, 'data-testid': 'announcement-title' },
            }}
          />
        )}
      />
      <Controller
        name="text"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            label={t('announcements.text')}
            required
            multiline
            minRows={4}
            maxRows={12}
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
            slotProps={{
              htmlInput: { maxLength: ANNOUNCEMENT_TEXT_MAX, 'data-testid': 'announcement-text' },
            }}
          />
        )}
      />
      <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap' }}>
        <Controller
          name="priority"
          control={control}
          render={({ field }) => (
            <TextField
              select
              label={t('announcements.priority')}
              value={field.value}
              onChange={(e) => field.onChange(Number(e.target.value))}
              sx={{ minWidth: 180 }}
              slotProps={{
                select: { SelectDisplayProps: { 'data-testid': 'announcement-priority' } as object },
              }}
            >
              {PRIORITIES.map((p) => (
                <MenuItem key={p} value={p} data-testid={`announcement-priority-${p}`}>
                  <PriorityChip priority={p} />
                </MenuItem>
              ))}
            </TextField>
          )}
        />
        <Controller
          name="status"
          control={control}
          render={({ field }) => (
            <FormControlLabel
              control={<Switch checked={field.value} onChange={(e) => field.onChange(e.target.checked)} />}
              label={t('announcements.activeLabel')}
            />
          )}
        />
      </Box>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <input
          ref={fileInput}
          type="file"
          hidden
          accept={ACCEPT}
          data-testid="announcement-file"
          onChange={(e) => {
            const chosen = e.target.files?.[0];
            e.target.value = '';
            if (!chosen) return;
            setFileError(!acceptable(chosen));
            if (acceptable(chosen)) setFile(chosen);
          }}
        />
        <Button variant="outlined" startIcon={<AttachFileIcon />} onClick={() => fileInput.current?.click()}>
          {t(currentMedia ? 'announcements.replaceMedia' : 'announcements.attach')}
        </Button>
        {currentMedia ? (
          <Chip
            icon={<AttachFileIcon />}
            label={currentMedia}
            onDelete={() => {
              if (file) setFile(null);
              else setDropMedia(true);
            }}
            sx={{ maxWidth: 280 }}
            data-testid="announcement-media-chip"
          />
        ) : (
          <Typography variant="body2" color="text.secondary">
            {t('announcements.noMedia')}
          </Typography>
        )}
      </Box>
      <Typography
        variant="caption"
        color={fileError ? 'error' : 'text.secondary'}
        role={fileError ? 'alert' : undefined}
      >
        {t(fileError ? 'announcements.badFile' : 'announcements.mediaHint')}
      </Typography>
    </FormDialog>
  );
}
