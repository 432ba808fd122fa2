import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import EventOutlinedIcon from '@mui/icons-material/EventOutlined';
import { useTranslation } from 'react-i18next';
import {
  CONTACT_SEARCH_MIN_LENGTH,
  SCHEDULE_BODY_MAX,
  SCHEDULE_BODY_MIN,
  SCHEDULE_DEFAULT_DELAY_MS,
  SCHEDULE_MEDIA_EXTENSIONS,
  formatNumber,
  type ContactPage,
  type Schedule,
  type ScheduleConnection,
} from '@recado/contracts';
import { api } from '../../api/client.js';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useDeleteSchedule, useSaveSchedule, useScheduleMedia } from '../../api/schedules.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { useDebouncedValue } from '../../components/useDebouncedValue.js';
import { fromLocalInput, toLocalInput } from './schedule-time.js';
import { formatDateTime } from '../../i18n/format.js';
import { DateField } from '../../components/DateField.js';
import { TemplateFields, useTemplateDraft } from '../../components/templates/TemplateFields.js';

interface ContactOption {
  id: number;
  name: string;
  number: string;
}
const contactText = (c: ContactOption) =>
  c.name && c.name !== c.number ? `${c.name} · ${formatNumber(c.number)}` : formatNumber(c.number);

const ACCEPT = SCHEDULE_MEDIA_EXTENSIONS.map((e) => `.${e}`).join(',');
const isImage = (f: File) =>
  (SCHEDULE_MEDIA_EXTENSIONS as readonly string[]).includes(f.name.split('.').pop()?.toLowerCase() ?? '');

/** "ERR_CODE: detail" from the server: the translated code, then the detail. */
export function useErrorReason() {
  const { t } = useTranslation();
  return (error: string | null) => {
    if (!error) return '';
    const m = /^(ERR_[A-Z_]+):\s*(.*)$/s.exec(error);
    if (!m) return error;
    const known = t(`errors.${m[1]}`, { defaultValue: '' });
    return known ? `${known}${m[2] ? ` (${m[2]})` : ''}` : error;
  };
}

/**
 * Add or edit a scheduled message (docs/team-tools.md): contact, text of at least 5 characters, send time
 * (one hour from now by default), an optional png/jpg/jpeg image. A sent schedule is read-only.
 */
export function ScheduleDialog({
  open,
  schedule,
  contactId,
  ticketId,
  defaultSendAt,
  onClose,
}: {
  open: boolean;
  schedule?: Schedule | null;
  /** Pre-chosen contact (from a ticket or ?contactId=): not changeable here. */
  contactId?: number | null;
  ticketId?: number | null;
  defaultSendAt?: Date | null;
  onClose(): void;
}) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const { user } = useAuth();
  const reason = useErrorReason();
  const save = useSaveSchedule();
  const media = useScheduleMedia();
  const remove = useDeleteSchedule();
  const fileInput = useRef<HTMLInputElement>(null);

  const fixedContactId = schedule?.contactId ?? contactId ?? null;
  const fixed = useQuery({
    queryKey: ['contacts', 'detail', fixedContactId ?? 0],
    queryFn: () => api.get<ContactOption>(`/contacts/${fixedContactId}`),
    enabled: open && fixedContactId !== null && !schedule,
    retry: false,
  });
  const [picked, setPicked] = useState<ContactOption | null>(null);
  const contact: ContactOption | null = schedule ? schedule.contact : (picked ?? fixed.data ?? null);
  const [input, setInput] = useState('');
  const search = useDebouncedValue(input, 500).trim();
  const contacts = useQuery({
    queryKey: ['contacts', 'schedule-search', search],
    queryFn: () => api.get<ContactPage>('/contacts', { searchParam: search, pageNumber: 1 }),
    enabled: open && search.length >= CONTACT_SEARCH_MIN_LENGTH,
    retry: false,
  });

  // The connection the schedule goes out on: a Cloud API one offers templates (docs/cloud-api.md).
  const connection = useQuery({
    queryKey: ['schedules', 'connection', contact?.id ?? 0, schedule?.whatsappId ?? 0],
    queryFn: () =>
      api.get<ScheduleConnection>('/schedules/connection', {
        contactId: contact!.id,
        ...(schedule?.whatsappId ? { whatsappId: schedule.whatsappId } : {}),
      }),
    enabled: open && Boolean(contact),
    retry: false,
  });
  const cloud = connection.data?.connection?.channel === 'cloud_api' ? connection.data.connection : null;
  const template = useTemplateDraft(cloud?.id);
  const resetTemplate = template.reset;
  const [useTemplate, setUseTemplate] = useState(false);
  const withTemplate = Boolean(cloud) && useTemplate;

  const [body, setBody] = useState('');
  const [sendAt, setSendAt] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [dropMedia, setDropMedia] = useState(false);
  const [errors, setErrors] = useState<{
    contact?: string;
    body?: string;
    sendAt?: string;
    file?: string;
    template?: string;
  }>({});
  const [busy, setBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);

  useEffect(() => {
    if (!open) return;
    setBody(schedule?.body ?? '');
    setUseTemplate(Boolean(schedule?.template));
    resetTemplate(schedule?.template);
    setSendAt(
      toLocalInput(
        schedule
          ? new Date(schedule.sendAt)
          : (defaultSendAt ?? new Date(Date.now() + SCHEDULE_DEFAULT_DELAY_MS)),
      ),
    );
    setPicked(null);
    setInput('');
    setFile(null);
    setDropMedia(false);
    setErrors({});
  }, [open, schedule, defaultSendAt, resetTemplate]);

  const sent = Boolean(schedule?.sentAt) || schedule?.status === 'ENVIADA';
  const sending = schedule?.status === 'AGENDADA';
  const mayChange =
    !schedule ||
    schedule.userId === user?.id ||
    user?.profile === 'admin' ||
    user?.profile === 'supervisor' ||
    Boolean(user?.super);
  const readOnly = sent || sending || !mayChange;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (readOnly) return;
    const when = fromLocalInput(sendAt);
    const next = {
      contact: contact ? undefined : t('common.required'),
      body: withTemplate
        ? undefined
        : !body.trim()
          ? t('common.required')
          : body.trim().length < SCHEDULE_BODY_MIN
            ? t('schedules.bodyTooShort')
            : undefined,
      sendAt: !when ? t('common.required') : undefined,
      template: withTemplate && !template.input ? t('common.required') : undefined,
    };
    setErrors(next);
    if (next.contact || next.body || next.sendAt || next.template || !contact || !when) return;
    setBusy(true);
    try {
      const input = {
        ...(withTemplate && template.input
          ? { template: template.input }
          : { body: body.trim(), ...(schedule?.template ? { template: null } : {}) }),
        contactId: contact.id,
        sendAt: when.toISOString(),
        ...(!schedule && ticketId ? { ticketId } : {}),
      };
      const saved = await save.mutateAsync({ id: schedule?.id, input });
      if (file && !withTemplate) await media.upload.mutateAsync({ id: saved.id, file });
      else if (dropMedia && schedule?.mediaPath) await media.remove.mutateAsync(saved.id);
      toast.success('schedules.saved');
      onClose();
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };

  const doDelete = async () => {
    if (!schedule) return;
    try {
      await remove.mutateAsync(schedule.id);
      toast.success('schedules.deleted');
      onClose();
    } catch (err) {
      toast.error(err);
      throw err;
    }
  };

  const options = contacts.data?.contacts ?? [];
  const currentMedia = file?.name ?? (dropMedia ? null : (schedule?.mediaName ?? null));
  return (
    <>
      <Dialog
        open={open}
        onClose={busy ? undefined : onClose}
        maxWidth="sm"
        fullWidth
        aria-labelledby="schedule-dialog-title"
        data-testid="schedule-dialog"
        slotProps={{
          paper: {
            component: 'form',
            onSubmit: (e: FormEvent) => void submit(e),
            noValidate: true,
          } as object,
        }}
      >
        <DialogTitle id="schedule-dialog-title" sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          <EventOutlinedIcon color="primary" />
          {t(schedule ? 'schedules.editTitle' : 'schedules.addTitle')}
        </DialogTitle>
        <DialogContent dividers>
          <Stack spacing={2} sx={{ pt: 0.5 }}>
            {schedule?.status === 'ERRO' ? (
              <Alert severity="error" data-testid="schedule-error">
                <strong>{t('schedules.status.ERRO')}</strong>: {reason(schedule.error)}
              </Alert>
            ) : null}
            {sent ? (
              <Alert severity="success">
                {t('schedules.sentAt', {
                  when: formatDateTime(schedule!.sentAt ?? schedule!.updatedAt, i18n.language),
                })}
              </Alert>
            ) : null}
            {sending ? <Alert severity="info">{t('schedules.sendingNow')}</Alert> : null}
            {!readOnly || !schedule ? null : !mayChange ? (
              <Alert severity="info">{t('schedules.notYours')}</Alert>
            ) : null}
            <Autocomplete
              options={contact && !options.some((o) => o.id === contact.id) ? [contact, ...options] : options}
              value={contact}
              disabled={readOnly || Boolean(fixedContactId)}
              onChange={(_e, v) => {
                setPicked(v);
                setErrors((x) => ({ ...x, contact: undefined }));
              }}
              inputValue={fixedContactId || schedule ? (contact ? contactText(contact) : '') : input}
              onInputChange={(_e, v, why) => {
                if (why !== 'reset') setInput(v);
              }}
              filterOptions={(x) => x}
              getOptionLabel={contactText}
              isOptionEqualToValue={(a, b) => a.id === b.id}
              loading={contacts.isFetching || fixed.isLoading}
              noOptionsText={
                input.trim().length < CONTACT_SEARCH_MIN_LENGTH
                  ? t('schedules.typeToSearch')
                  : t('common.noRecords')
              }
              renderInput={(params) => (
                <TextField
                  {...params}
                  required
                  label={t('schedules.contact')}
                  error={Boolean(errors.contact)}
                  helperText={errors.contact}
                  data-testid="schedule-contact"
                />
              )}
            />
            {cloud ? (
              <Alert severity="info" data-testid="schedule-template-note" sx={{ py: 0 }}>
                {t('schedules.templateNote')}
              </Alert>
            ) : null}
            {cloud ? (
              <FormControlLabel
                control={
                  <Switch
                    checked={useTemplate}
                    disabled={readOnly}
                    onChange={(e) => {
                      setUseTemplate(e.target.checked);
                      setErrors((x) => ({ ...x, body: undefined, template: undefined }));
                    }}
                    slotProps={{ input: { 'data-testid': 'schedule-use-template' } as object }}
                  />
                }
                label={t('schedules.useTemplate')}
              />
            ) : null}
            {withTemplate ? (
              <Stack spacing={1.25} data-testid="schedule-template">
                <TemplateFields draft={template} disabled={readOnly} />
                {errors.template ? (
                  <Typography variant="body2" color="error">
                    {errors.template}
                  </Typography>
                ) : null}
              </Stack>
            ) : (
              <TextField
                label={t('schedules.body')}
                value={body}
                onChange={(e) => {
                  setBody(e.target.value);
                  setErrors((x) => ({ ...x, body: undefined }));
                }}
                required
                multiline
                minRows={3}
                maxRows={10}
                disabled={readOnly}
                autoFocus={!readOnly}
                error={Boolean(errors.body)}
                helperText={errors.body}
                slotProps={{ htmlInput: { maxLength: SCHEDULE_BODY_MAX, 'data-testid': 'schedule-body' } }}
              />
            )}
            <DateField
              kind="datetime"
              label={t('schedules.sendAt')}
              value={sendAt}
              onChange={(v) => {
                setSendAt(v);
                setErrors((x) => ({ ...x, sendAt: undefined }));
              }}
              required
              disabled={readOnly}
              error={Boolean(errors.sendAt)}
              helperText={errors.sendAt}
              testId="schedule-send-at"
            />
            <Box
              sx={{
                display: withTemplate ? 'none' : 'flex',
                alignItems: 'center',
                gap: 1,
                flexWrap: 'wrap',
              }}
            >
              <input
                ref={fileInput}
                type="file"
                hidden
                accept={ACCEPT}
                data-testid="schedule-file"
                onChange={(e) => {
                  const chosen = e.target.files?.[0];
                  e.target.value = '';
                  if (!chosen) return;
                  if (!isImage(chosen)) {
                    setErrors((x) => ({ ...x, file: t('schedules.imagesOnly') }));
                    return;
                  }
                  setErrors((x) => ({ ...x, file: undefined }));
                  setFile(chosen);
                }}
              />
              <Button
                variant="outlined"
                startIcon={<AttachFileIcon />}
                disabled={readOnly}
                onClick={() => fileInput.current?.click()}
              >
                {t(currentMedia ? 'schedules.replaceMedia' : 'schedules.attach')}
              </Button>
              {currentMedia ? (
                <Chip
                  icon={<AttachFileIcon />}
                  label={currentMedia}
                  onDelete={
                    readOnly
                      ? undefined
                      : () => {
                          if (file) setFile(null);
                          else setDropMedia(true);
                        }
                  }
                  sx={{ maxWidth: 280 }}
                />
              ) : (
                <Typography variant="body2" color={errors.file ? 'error' : 'text.secondary'}>
                  {errors.file ?? t('schedules.attachHint')}
                </Typography>
              )}
            </Box>
          </Stack>
        </DialogContent>
        <DialogActions sx={{ px: 3, py: 1.5 }}>
          {schedule && mayChange ? (
            <Button color="error" onClick={() => setConfirmDelete(true)} disabled={busy} sx={{ mr: 'auto' }}>
              {t('common.delete')}
            </Button>
          ) : null}
          <Button onClick={onClose} disabled={busy} color="inherit">
            {t(readOnly ? 'common.close' : 'common.cancel')}
          </Button>
          {readOnly ? null : (
            <Button
              type="submit"
              variant="contained"
              disabled={busy}
              startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}
              data-testid="schedule-save"
            >
              {t('schedules.save')}
            </Button>
          )}
        </DialogActions>
      </Dialog>
      <ConfirmationDialog
        open={confirmDelete}
        title={t('schedules.deleteTitle')}
        onClose={() => setConfirmDelete(false)}
        onConfirm={doDelete}
        confirmLabel={t('common.delete')}
      >
        {t('schedules.deleteMessage')}
      </ConfirmationDialog>
    </>
  );
}

export default ScheduleDialog;
