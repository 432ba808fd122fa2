import { useEffect, useRef, useState } from 'react';
import { Controller, useForm, useWatch, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { Box, Button, Chip, FormControlLabel, Stack, Switch, TextField, Typography } from '@mui/material';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import { useTranslation } from 'react-i18next';
import { QUICK_MESSAGE_MAX, QUICK_MESSAGE_SHORTCODE_MAX, type QuickMessage } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useQuickMessageMedia, useSaveQuickMessage } from '../../api/quick-messages.js';
import { FormDialog } from '../../components/FormDialog.js';
import { fieldErrorText } from '../../components/fieldError.js';

const schema = z.object({
  shortcode: z
    .string()
    .trim()
    .min(1)
    .max(QUICK_MESSAGE_SHORTCODE_MAX)
    .regex(/^\/?\S+$/, 'quickMessages.noSpaces'),
  message: z.string().trim().min(1).max(QUICK_MESSAGE_MAX),
  geral: z.boolean(),
  allowEdit: z.boolean(),
  status: z.boolean(),
});
type Form = z.infer<typeof schema>;

const valuesOf = (q: QuickMessage | null): Form => ({
  shortcode: q?.shortcode ?? '',
  message: q?.message ?? '',
  geral: q?.geral ?? false,
  allowEdit: q?.allowEdit ?? false,
  status: q?.status ?? true,
});

/** Add or edit a quick message: shortcode, text, who sees and edits it, and an optional attachment. */
export function QuickMessageDialog({
  open,
  record,
  onClose,
}: {
  open: boolean;
  record: QuickMessage | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const { user } = useAuth();
  const save = useSaveQuickMessage();
  const media = useQuickMessageMedia();
  const fileInput = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [dropMedia, setDropMedia] = useState(false);
  const { control, handleSubmit, reset, formState } = useForm<Form>({
    resolver: zodResolver(schema) as unknown as Resolver<Form>,
    defaultValues: valuesOf(record),
  });
  const geral = useWatch({ control, name: 'geral' });
  // Only the owner (or an admin) decides who sees and edits an entry.
  const governs = !record || record.userId === user?.id || user?.profile === 'admin' || Boolean(user?.super);

  useEffect(() => {
    if (!open) return;
    reset(valuesOf(record));
    setFile(null);
    setDropMedia(false);
  }, [open, record, reset]);

  const submit = handleSubmit(async (values) => {
    const input = {
      shortcode: values.shortcode.replace(/^\/+/, ''),
      message: values.message,
      status: values.status,
      ...(governs ? { geral: values.geral, allowEdit: values.geral && values.allowEdit } : {}),
    };
    try {
      const saved = await save.mutateAsync({ id: record?.id, input });
      if (file) await media.upload.mutateAsync({ id: saved.id, file });
      else if (dropMedia && record?.mediaPath) await media.remove.mutateAsync(saved.id);
      toast.success('quickMessages.saved');
      onClose();
    } catch (err) {
      toast.error(err);
    }
  });

  const currentMedia = file?.name ?? (dropMedia ? null : (record?.mediaName ?? null));
  return (
    <FormDialog
      open={open}
      title={t(record ? 'quickMessages.editTitle' : 'quickMessages.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={formState.isSubmitting}
    >
      <Controller
        name="shortcode"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            label={t('quickMessages.shortcode')}
            autoFocus
            required
            autoComplete="off"
            error={Boolean(fieldState.error)}
            helperText={
              fieldErrorText(t, fieldState.error, {
                value: field.value,
                formatKey: 'quickMessages.noSpaces',
              }) ?? t('quickMessages.shortcodeHint')
            }
            slotProps={{
              htmlInput: { maxLength: QUICK_MESSAGE_SHORTCODE_MAX + 1, 'data-testid': 'qm-shortcode' },
            }}
          />
        )}
      />
      <Controller
        name="message"
        control={control}
        render={({ field, fieldState }) => (
          <TextField
            {...field}
            label={t('quickMessages.message')}
            required
            multiline
            minRows={4}
            maxRows={12}
            error={Boolean(fieldState.error)}
            helperText={fieldErrorText(t, fieldState.error, { value: field.value })}
            slotProps={{ htmlInput: { maxLength: QUICK_MESSAGE_MAX, 'data-testid': 'qm-message' } }}
          />
        )}
      />
      <Stack spacing={0}>
        <Controller
          name="status"
          control={control}
          render={({ field }) => (
            <FormControlLabel
              control={<Switch checked={field.value} onChange={(e) => field.onChange(e.target.checked)} />}
              label={t('quickMessages.active')}
            />
          )}
        />
        <Controller
          name="geral"
          control={control}
          render={({ field }) => (
            <FormControlLabel
              disabled={!governs}
              control={
                <Switch
                  checked={field.value}
                  onChange={(e) => field.onChange(e.target.checked)}
                  slotProps={{ input: { 'aria-describedby': 'qm-geral-hint' } }}
                />
              }
              label={t('quickMessages.geral')}
            />
          )}
        />
        <Typography id="qm-geral-hint" variant="caption" color="text.secondary" sx={{ ml: 6, mt: -0.5 }}>
          {t(geral ? 'quickMessages.geralOnHint' : 'quickMessages.geralOffHint')}
        </Typography>
        {geral ? (
          <Controller
            name="allowEdit"
            control={control}
            render={({ field }) => (
              <FormControlLabel
                disabled={!governs}
                control={<Switch checked={field.value} onChange={(e) => field.onChange(e.target.checked)} />}
                label={t('quickMessages.allowEdit')}
              />
            )}
          />
        ) : null}
      </Stack>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
        <input
          ref={fileInput}
          type="file"
          hidden
          data-testid="qm-file"
          onChange={(e) => {
            const chosen = e.target.files?.[0];
            e.target.value = '';
            if (chosen) setFile(chosen);
          }}
        />
        <Button variant="outlined" startIcon={<AttachFileIcon />} onClick={() => fileInput.current?.click()}>
          {t(currentMedia ? 'quickMessages.replaceMedia' : 'quickMessages.attach')}
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
            data-testid="qm-media-chip"
          />
        ) : (
          <Typography variant="body2" color="text.secondary">
            {t('quickMessages.noMedia')}
          </Typography>
        )}
      </Box>
    </FormDialog>
  );
}
