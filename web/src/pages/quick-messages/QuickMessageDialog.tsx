import { useEffect, useRef, useState } from 'react';
import { z } from 'zod';
import { Box, Button, Chip, FormControlLabel, Stack, Switch, Typography } from '@mui/material';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import { useTranslation } from 'react-i18next';
import { QUICK_MESSAGE_MAX, QUICK_MESSAGE_SHORTCODE_MAX, type QuickMessage } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useQuickMessageMedia, useSaveQuickMessage } from '../../api/quick-messages.js';
import { ResourceFormDialog, useResourceForm, type FormField } from '../../components/ResourceFormDialog.js';

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
  const { user } = useAuth();
  const save = useSaveQuickMessage();
  const media = useQuickMessageMedia();
  const fileInput = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [dropMedia, setDropMedia] = useState(false);
  const form = useResourceForm({ open, record, schema, values: valuesOf });
  // Only the owner (or an admin) decides who sees and edits an entry.
  const governs = !record || record.userId === user?.id || user?.profile === 'admin' || Boolean(user?.super);

  useEffect(() => {
    if (!open) return;
    setFile(null);
    setDropMedia(false);
  }, [open, record]);

  const fields: FormField<Form>[] = [
    {
      name: 'shortcode',
      kind: 'text',
      label: 'quickMessages.shortcode',
      hint: 'quickMessages.shortcodeHint',
      autoFocus: true,
      required: true,
      maxLength: QUICK_MESSAGE_SHORTCODE_MAX + 1,
      messages: { invalid_format: 'quickMessages.noSpaces' },
      inputProps: { 'data-testid': 'qm-shortcode' },
    },
    {
      name: 'message',
      kind: 'multiline',
      label: 'quickMessages.message',
      required: true,
      maxLength: QUICK_MESSAGE_MAX,
      inputProps: { 'data-testid': 'qm-message' },
    },
    { name: 'status', kind: 'switch', label: 'quickMessages.active' },
    {
      name: 'geral',
      kind: 'custom',
      render: ({ field, t }) => (
        <Stack spacing={0}>
          <FormControlLabel
            disabled={!governs}
            control={
              <Switch
                checked={Boolean(field.value)}
                onChange={(e) => field.onChange(e.target.checked)}
                slotProps={{ input: { 'aria-describedby': 'qm-geral-hint' } }}
              />
            }
            label={t('quickMessages.geral')}
          />
          <Typography id="qm-geral-hint" variant="caption" color="text.secondary" sx={{ ml: 6, mt: -0.5 }}>
            {t(field.value ? 'quickMessages.geralOnHint' : 'quickMessages.geralOffHint')}
          </Typography>
        </Stack>
      ),
    },
    {
      name: 'allowEdit',
      kind: 'switch',
      label: 'quickMessages.allowEdit',
      disabled: !governs,
      hidden: (values) => !values.geral,
    },
  ];

  const currentMedia = file?.name ?? (dropMedia ? null : (record?.mediaName ?? null));
  return (
    <ResourceFormDialog
      open={open}
      record={record}
      onClose={onClose}
      form={form}
      i18n="quickMessages"
      fields={fields}
      toInput={(values) => ({
        shortcode: values.shortcode.replace(/^\/+/, ''),
        message: values.message,
        status: values.status,
        ...(governs ? { geral: values.geral, allowEdit: values.geral && values.allowEdit } : {}),
      })}
      save={save.mutateAsync}
      afterSave={async (saved) => {
        if (file) await media.upload.mutateAsync({ id: saved.id, file });
        else if (dropMedia && record?.mediaPath) await media.remove.mutateAsync(saved.id);
      }}
    >
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
    </ResourceFormDialog>
  );
}
