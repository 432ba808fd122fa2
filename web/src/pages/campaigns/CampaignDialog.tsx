import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import {
  Alert,
  Box,
  Button,
  Chip,
  FormControl,
  FormControlLabel,
  FormHelperText,
  InputLabel,
  MenuItem,
  Radio,
  RadioGroup,
  Select,
  Stack,
  Switch,
  Tab,
  Tabs,
  TextField,
  Typography,
} from '@mui/material';
import AttachFileIcon from '@mui/icons-material/AttachFile';
import { useTranslation } from 'react-i18next';
import { allowsFirstContact, CAMPAIGN_VARIANTS, CampaignInput, type Campaign } from '@recado/contracts';
import { useToast } from '../../app/useToast.js';
import {
  useCampaignMedia,
  useContactListOptions,
  useFileListOptions,
  useSaveCampaign,
} from '../../api/campaigns.js';
import { useAllTags } from '../../api/tags.js';
import { useWhatsapps } from '../../api/whatsapps.js';
import { FormDialog } from '../../components/FormDialog.js';
import { DateField } from '../../components/DateField.js';
import { useTemplates } from '../../api/templates.js';
import {
  CampaignTemplateFields,
  templateFormOf,
  templateInput,
  type TemplateForm,
} from './CampaignTemplateFields.js';
import { fromLocalInput, inRange, toLocalInput, useCampaignErrors } from './campaign-ui.js';

/** A select's value: '' (none) or an id. */
const asId = (v: unknown): number | '' => (v === '' || v == null ? '' : Number(v));
const VARIANTS = Array.from({ length: CAMPAIGN_VARIANTS }, (_, i) => i + 1);

interface FormState {
  name: string;
  whatsappId: number | '';
  audience: 'list' | 'tag';
  contactListId: number | '';
  tagId: number | '';
  fileListId: number | '';
  confirmation: boolean;
  messages: string[];
  confirmationMessages: string[];
  scheduledAt: string;
  /** Cloud API connections: the template and its values' sources. */
  template: TemplateForm;
}

/**
 * One of the dialog's id selects (connection, contact list, tag, file list): its options once loaded, an
 * optional "none" first, and under it the error or else the help.
 */
function IdSelect<T extends { id: number; name: string }>({
  id,
  label,
  field,
  value,
  options,
  onChange,
  disabled,
  none = true,
  optionLabel = (o) => o.name,
  error,
  help,
}: {
  id: string;
  label: string;
  /** The select's data-field. */
  field: string;
  value: number | '';
  options: T[] | undefined;
  onChange(value: number | ''): void;
  disabled: boolean;
  none?: boolean;
  optionLabel?: (option: T) => ReactNode;
  error?: string;
  help?: string;
}) {
  const { t } = useTranslation();
  return (
    <FormControl fullWidth error={Boolean(error)} disabled={disabled}>
      <InputLabel id={id}>{label}</InputLabel>
      <Select
        labelId={id}
        label={label}
        value={inRange(value, options)}
        onChange={(e) => onChange(asId(e.target.value))}
        data-field={field}
      >
        {none ? (
          <MenuItem value="">
            <em>{t('campaigns.none')}</em>
          </MenuItem>
        ) : null}
        {(options ?? []).map((o) => (
          <MenuItem key={o.id} value={o.id}>
            {optionLabel(o)}
          </MenuItem>
        ))}
      </Select>
      {error || help ? <FormHelperText>{error || help}</FormHelperText> : null}
    </FormControl>
  );
}

const fromCampaign = (c: Campaign | null, defaultWhatsapp: number | ''): FormState => ({
  name: c?.name ?? '',
  whatsappId: c ? (c.whatsappId ?? '') : defaultWhatsapp,
  audience: c?.tagId ? 'tag' : 'list',
  contactListId: c?.contactListId ?? '',
  tagId: c?.tagId ?? '',
  fileListId: c?.fileListId ?? '',
  confirmation: c?.confirmation ?? false,
  messages: VARIANTS.map((i) => String(c?.[`message${i}` as keyof Campaign] ?? '')),
  confirmationMessages: VARIANTS.map((i) => String(c?.[`confirmationMessage${i}` as keyof Campaign] ?? '')),
  scheduledAt: c?.scheduledAt ? toLocalInput(new Date(c.scheduledAt)) : '',
  template: templateFormOf(c?.template),
});

/**
 * Add or edit a campaign (docs/campaigns.md): name, connection, a contact list or a tag, up to five
 * message variants in tabs (each with its confirmation message when the confirmation flow is on), an
 * optional file list and attachment, and the schedule. Read-only once the campaign is locked.
 */
export function CampaignDialog({
  open,
  campaign,
  onClose,
}: {
  open: boolean;
  campaign: Campaign | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const showError = useCampaignErrors();
  const save = useSaveCampaign();
  const media = useCampaignMedia();
  const allWhatsapps = useWhatsapps(open);
  // #34.4 Only connections whose channel may write first (WhatsApp, Cloud API, simulator); an existing
  // campaign's own connection stays listed so its form still shows it.
  const whatsapps = useMemo(
    () => ({
      data: allWhatsapps.data?.filter(
        (w) => allowsFirstContact(w.channel) || (campaign && w.id === campaign.whatsappId),
      ),
    }),
    [allWhatsapps.data, campaign],
  );
  const lists = useContactListOptions(open);
  const fileLists = useFileListOptions(open);
  const tags = useAllTags();
  const readOnly = Boolean(campaign && !campaign.editable);
  const defaultWhatsapp = useMemo(
    () => whatsapps.data?.find((w) => w.isDefault)?.id ?? whatsapps.data?.[0]?.id ?? '',
    [whatsapps.data],
  );
  const [form, setForm] = useState<FormState>(() => fromCampaign(campaign, ''));
  const [tab, setTab] = useState(0);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [file, setFile] = useState<File | null>(null);
  const [dropMedia, setDropMedia] = useState(false);
  const [busy, setBusy] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  // A Cloud API connection sends an approved template instead of free text (Meta's rule, docs/campaigns.md).
  const cloud =
    form.whatsappId !== '' && whatsapps.data?.find((w) => w.id === form.whatsappId)?.channel === 'cloud_api';
  const templates = useTemplates(cloud && open ? Number(form.whatsappId) : null, true);

  useEffect(() => {
    if (!open) return;
    setForm(fromCampaign(campaign, defaultWhatsapp));
    setTab(0);
    setErrors({});
    setFile(null);
    setDropMedia(false);
    // Reset when the dialog opens (not when the connection list refreshes: the second effect fills that in).
  }, [open, campaign]);
  useEffect(() => {
    if (open && !campaign && form.whatsappId === '' && defaultWhatsapp !== '')
      setForm((f) => ({ ...f, whatsappId: defaultWhatsapp }));
  }, [open, campaign, defaultWhatsapp, form.whatsappId]);

  /** A field that changes loses its error (the next save checks it again). */
  const clearError = (key: string) =>
    setErrors((e) => {
      if (!(key in e)) return e;
      const { [key]: _gone, ...rest } = e;
      return rest;
    });
  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    clearError(key === 'contactListId' || key === 'tagId' ? 'audience' : key);
  };
  /** What binds an id select to its field of the form. */
  const bind = (key: 'whatsappId' | 'contactListId' | 'tagId' | 'fileListId') => ({
    field: key,
    value: form[key],
    onChange: (v: number | '') => set(key, v),
    disabled: readOnly,
  });
  const setVariant = (key: 'messages' | 'confirmationMessages', i: number, value: string) => {
    setForm((f) => ({ ...f, [key]: f[key].map((m, k) => (k === i ? value : m)) }));
    if (key === 'messages') clearError('message1');
  };

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (readOnly) return onClose();
    const scheduled = form.scheduledAt ? fromLocalInput(form.scheduledAt) : null;
    const body: Record<string, unknown> = {
      name: form.name,
      whatsappId: form.whatsappId === '' ? null : form.whatsappId,
      contactListId: form.audience === 'list' && form.contactListId !== '' ? form.contactListId : null,
      tagId: form.audience === 'tag' && form.tagId !== '' ? form.tagId : null,
      fileListId: form.fileListId === '' ? null : form.fileListId,
      confirmation: form.confirmation,
      scheduledAt: scheduled ? scheduled.toISOString() : null,
    };
    VARIANTS.forEach((i) => {
      body[`message${i}`] = form.messages[i - 1];
      body[`confirmationMessage${i}`] = form.confirmationMessages[i - 1];
    });
    const next: Record<string, string> = {};
    body.template = null;
    if (cloud) {
      const tpl = templateInput(form.template, templates.data);
      if ('template' in tpl) body.template = tpl.template;
      else next.template = t(`campaigns.template.${tpl.problem}`);
      // Free text, files and the confirmation flow don't go to people outside the 24-hour window.
      body.confirmation = false;
      body.fileListId = null;
    }
    const parsed = CampaignInput.safeParse(body);
    if (!parsed.success)
      for (const issue of parsed.error.issues) {
        if (cloud && String(issue.path[0]) === 'message1') continue;
        const key = String(issue.path[0] ?? '');
        next[key] ??=
          key === 'name'
            ? t('campaigns.nameRule')
            : key === 'message1'
              ? t('campaigns.messageRequired')
              : issue.message;
      }
    if (scheduled) {
      if (body.whatsappId == null) next.whatsappId = t('common.required');
      if (body.contactListId == null && body.tagId == null) next.audience = t('campaigns.audienceRequired');
    }
    if (form.scheduledAt && !scheduled) next.scheduledAt = t('campaigns.invalidDate');
    setErrors(next);
    if (Object.keys(next).length) {
      if (next.message1) setTab(0);
      return;
    }
    setBusy(true);
    try {
      const saved = await save.mutateAsync({ id: campaign?.id, input: parsed.data! });
      if (file && !cloud) await media.mutateAsync({ id: saved.id, file });
      else if ((dropMedia || cloud) && campaign?.mediaPath)
        await media.mutateAsync({ id: saved.id, file: null });
      toast.success('campaigns.saved');
      onClose();
    } catch (err) {
      showError(err);
    } finally {
      setBusy(false);
    }
  };

  const mediaName = file?.name ?? (!dropMedia ? campaign?.mediaName : null);

  return (
    <FormDialog
      open={open}
      title={t(campaign ? (readOnly ? 'campaigns.viewTitle' : 'campaigns.editTitle') : 'campaigns.addTitle')}
      onClose={onClose}
      onSubmit={(e) => void submit(e)}
      submitting={busy}
      readOnly={readOnly}
      maxWidth="md"
    >
      {readOnly && campaign ? (
        <Alert severity="info" data-testid="campaign-read-only">
          {t(`campaigns.readOnlyWhy.${campaign.status}`)}
        </Alert>
      ) : null}
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <TextField
          label={t('campaigns.name')}
          value={form.name}
          onChange={(e) => set('name', e.target.value)}
          required
          autoFocus={!readOnly}
          disabled={readOnly}
          error={Boolean(errors.name)}
          helperText={errors.name}
          fullWidth
          slotProps={{ htmlInput: { 'data-field': 'name', maxLength: 50 } }}
        />
        <IdSelect
          id="campaign-whatsapp"
          label={t('campaigns.whatsapp')}
          options={whatsapps.data}
          {...bind('whatsappId')}
          none={false}
          error={errors.whatsappId}
        />
      </Stack>

      <Box>
        <RadioGroup
          row
          value={form.audience}
          onChange={(e) => set('audience', e.target.value as FormState['audience'])}
          aria-label={t('campaigns.audience')}
        >
          <FormControlLabel
            value="list"
            control={<Radio size="small" />}
            label={t('campaigns.contactList')}
            disabled={readOnly}
          />
          <FormControlLabel
            value="tag"
            control={<Radio size="small" />}
            label={t('campaigns.tag')}
            disabled={readOnly}
          />
        </RadioGroup>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
          {form.audience === 'list' ? (
            <IdSelect
              id="campaign-list"
              label={t('campaigns.contactList')}
              options={lists.data}
              optionLabel={(l) => `${l.name} (${l.contactsCount})`}
              {...bind('contactListId')}
              error={errors.audience}
            />
          ) : (
            <IdSelect
              id="campaign-tag"
              label={t('campaigns.tag')}
              options={tags.data}
              {...bind('tagId')}
              error={errors.audience}
              help={t('campaigns.tagHelp')}
            />
          )}
          {cloud ? null : (
            <IdSelect
              id="campaign-files"
              label={t('campaigns.fileList')}
              options={fileLists.data}
              {...bind('fileListId')}
            />
          )}
        </Stack>
      </Box>

      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
        <DateField
          kind="datetime"
          label={t('campaigns.scheduledAt')}
          value={form.scheduledAt}
          onChange={(v) => set('scheduledAt', v)}
          disabled={readOnly}
          error={Boolean(errors.scheduledAt)}
          helperText={errors.scheduledAt ?? t('campaigns.scheduleHelp')}
          fullWidth
          testId="campaign-scheduled-at"
        />
        <Button
          variant="outlined"
          onClick={() => set('scheduledAt', toLocalInput(new Date()))}
          disabled={readOnly}
          sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
          data-testid="campaign-schedule-now"
        >
          {t('campaigns.now')}
        </Button>
        {cloud ? null : (
          <FormControlLabel
            control={
              <Switch
                checked={form.confirmation}
                onChange={(e) => set('confirmation', e.target.checked)}
                disabled={readOnly}
              />
            }
            label={t('campaigns.confirmation')}
            sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
          />
        )}
      </Stack>

      {cloud ? (
        <CampaignTemplateFields
          whatsappId={Number(form.whatsappId)}
          value={form.template}
          onChange={(next) => set('template', next)}
          readOnly={readOnly}
          error={errors.template}
        />
      ) : (
        <>
          <Box sx={{ border: 1, borderColor: 'divider', borderRadius: 1 }}>
            <Tabs
              value={tab}
              onChange={(_e, v: number) => setTab(v)}
              variant="scrollable"
              scrollButtons="auto"
              sx={{ borderBottom: 1, borderColor: 'divider' }}
            >
              {VARIANTS.map((i) => (
                <Tab
                  key={i}
                  value={i - 1}
                  data-testid={`campaign-variant-tab-${i}`}
                  label={
                    <Stack direction="row" spacing={0.75} sx={{ alignItems: 'center' }}>
                      <span>{t('campaigns.variant', { n: i })}</span>
                      {form.messages[i - 1]?.trim() ? (
                        <Box
                          component="span"
                          sx={{ width: 6, height: 6, borderRadius: '50%', bgcolor: 'primary.main' }}
                        />
                      ) : null}
                    </Stack>
                  }
                />
              ))}
            </Tabs>
            <Stack spacing={2} sx={{ p: 2 }}>
              <TextField
                label={t('campaigns.message', { n: tab + 1 })}
                value={form.messages[tab] ?? ''}
                onChange={(e) => setVariant('messages', tab, e.target.value)}
                multiline
                minRows={4}
                disabled={readOnly}
                error={tab === 0 && Boolean(errors.message1)}
                helperText={(tab === 0 && errors.message1) || t('campaigns.placeholdersHelp')}
                slotProps={{ htmlInput: { 'data-field': `message${tab + 1}`, maxLength: 4000 } }}
              />
              {form.confirmation ? (
                <TextField
                  label={t('campaigns.confirmationMessage', { n: tab + 1 })}
                  value={form.confirmationMessages[tab] ?? ''}
                  onChange={(e) => setVariant('confirmationMessages', tab, e.target.value)}
                  multiline
                  minRows={2}
                  disabled={readOnly}
                  helperText={t('campaigns.confirmationHelp')}
                  slotProps={{
                    htmlInput: { 'data-field': `confirmationMessage${tab + 1}`, maxLength: 4000 },
                  }}
                />
              ) : null}
            </Stack>
          </Box>

          <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
            <input
              ref={fileInput}
              type="file"
              hidden
              accept="image/*,video/*,audio/*,application/pdf"
              onChange={(e) => {
                const f = e.target.files?.[0] ?? null;
                setFile(f);
                setDropMedia(false);
                e.target.value = '';
              }}
            />
            <Button
              variant="outlined"
              startIcon={<AttachFileIcon />}
              onClick={() => fileInput.current?.click()}
              disabled={readOnly}
            >
              {t('campaigns.attach')}
            </Button>
            {mediaName ? (
              <Chip
                label={mediaName}
                onDelete={
                  readOnly
                    ? undefined
                    : () => {
                        setFile(null);
                        setDropMedia(true);
                      }
                }
              />
            ) : (
              <Typography variant="body2" color="text.secondary">
                {t('campaigns.noAttachment')}
              </Typography>
            )}
          </Stack>
        </>
      )}
    </FormDialog>
  );
}

export default CampaignDialog;
