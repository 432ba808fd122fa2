import { useRef, useState, type ChangeEvent } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router';
import { z } from 'zod';
import {
  Box,
  Button,
  Chip,
  IconButton,
  Link,
  MenuItem,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import ContentCopyOutlinedIcon from '@mui/icons-material/ContentCopyOutlined';
import FileDownloadOutlinedIcon from '@mui/icons-material/FileDownloadOutlined';
import FileUploadOutlinedIcon from '@mui/icons-material/FileUploadOutlined';
import OpenInNewOutlinedIcon from '@mui/icons-material/OpenInNewOutlined';
import TransformOutlinedIcon from '@mui/icons-material/TransformOutlined';
import { useQuery } from '@tanstack/react-query';
import {
  FlowExportFile,
  FlowInput,
  type Flow,
  type FlowIdMapping,
  type FlowMissingReference,
  type FlowSummary,
  type Whatsapp,
} from '@recado/contracts';
import { ApiError, api } from '../../api/client.js';
import { exportFlow, flowResource, useConvertFlow, useCreateFlow, useImportFlow } from '../../api/flows.js';
import { useToast } from '../../app/useToast.js';
import { FormDialog } from '../../components/FormDialog.js';
import { ResourceFormDialog, useResourceForm, type FormField } from '../../components/ResourceFormDialog.js';
import { ResourceListPage, FROM_MD, type ResourceColumn } from '../../components/ResourceListPage.js';
import { useDateFormat } from '../../i18n/format.js';
import { useFlowT } from './flow-i18n.js';
import { useFlowPickers } from './pickers.js';
import { docFromGraph, graphFromDoc } from './graph.js';

/** A flow's draft as the contract's graph (defaults filled in), to send back as a copy. */
const docGraph = (flow: Flow) => graphFromDoc(docFromGraph(flow.graph), flow.graph.viewport);

const FlowForm = z.object({ name: FlowInput.shape.name, description: z.string().trim().max(500) });
type FlowFormValues = z.infer<typeof FlowForm>;
const formValues = (f: FlowSummary | null): FlowFormValues => ({
  name: f?.name ?? '',
  description: f?.description ?? '',
});

/** Create (then open in the editor) or rename a flow: the form kit's dialog. */
function FlowDialog({ open, flow, onClose }: { open: boolean; flow: FlowSummary | null; onClose(): void }) {
  const navigate = useNavigate();
  const save = flowResource.useSave();
  const form = useResourceForm({ open, record: flow, schema: FlowForm, values: formValues });
  const fields: FormField<FlowFormValues>[] = [
    {
      name: 'name',
      kind: 'text',
      label: 'flows:form.name',
      required: true,
      autoFocus: true,
      maxLength: 100,
      inputProps: { 'data-field': 'name' },
    },
    { name: 'description', kind: 'multiline', label: 'flows:form.description', maxLength: 500, minRows: 2 },
  ];
  return (
    <ResourceFormDialog
      open={open}
      record={flow}
      onClose={onClose}
      form={form}
      i18n="flows:list"
      fields={fields}
      toInput={(v) => ({ name: v.name.trim(), description: v.description.trim() })}
      save={save.mutateAsync as (args: { id?: number; input: FlowInput }) => Promise<FlowSummary>}
      afterSave={async (saved) => {
        if (!flow) void navigate(`/flows/${saved.id}`);
      }}
    />
  );
}

/** The ids of an imported file that are not this company's: the admin picks what each one is here. */
function MappingDialog({
  missing,
  onClose,
  onSubmit,
}: {
  missing: FlowMissingReference[];
  onClose(): void;
  onSubmit(mapping: FlowIdMapping): Promise<void>;
}) {
  const { t } = useFlowT();
  const pickers = useFlowPickers(missing.length > 0);
  const [chosen, setChosen] = useState<Record<string, number>>({});
  const key = (m: FlowMissingReference) => `${m.kind}:${m.id}`;
  const complete = missing.every((m) => chosen[key(m)]);
  const [busy, setBusy] = useState(false);
  return (
    <FormDialog
      open={missing.length > 0}
      title={t('import.mapTitle')}
      onClose={onClose}
      submitting={busy}
      submitLabel={t('import.mapSubmit')}
      onSubmit={(e) => {
        e.preventDefault();
        if (!complete) return;
        const mapping: Record<string, Record<string, number>> = {};
        for (const m of missing) (mapping[m.kind] ??= {})[String(m.id)] = chosen[key(m)]!;
        setBusy(true);
        void onSubmit(mapping as FlowIdMapping).finally(() => setBusy(false));
      }}
    >
      <Typography variant="body2" color="text.secondary">
        {t('import.mapHelp')}
      </Typography>
      {missing.map((m) => (
        <TextField
          key={key(m)}
          select
          label={t('import.mapField', { kind: t(`refKinds.${m.kind}`), id: m.id })}
          helperText={t('import.usedBy', { nodes: m.nodeIds.join(', ') })}
          value={chosen[key(m)] ? String(chosen[key(m)]) : ''}
          onChange={(e) => setChosen((c) => ({ ...c, [key(m)]: Number(e.target.value) }))}
          slotProps={{ htmlInput: { 'data-testid': 'flow-map-field', 'data-kind': m.kind } }}
        >
          {pickers.lists[m.kind].map((o) => (
            <MenuItem key={o.id} value={String(o.id)}>
              {o.name}
            </MenuItem>
          ))}
        </TextField>
      ))}
    </FormDialog>
  );
}

/** "Convert from the bot": a connection's greeting and queue menu become a new draft flow. */
function ConvertDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const { t } = useFlowT();
  const toast = useToast();
  const navigate = useNavigate();
  const convert = useConvertFlow();
  const connections = useQuery({
    queryKey: ['whatsapps', 'list'],
    queryFn: () => api.get<Whatsapp[]>('/whatsapp'),
    enabled: open,
  });
  const [whatsappId, setWhatsappId] = useState('');
  const [name, setName] = useState('');
  return (
    <FormDialog
      open={open}
      title={t('convert.title')}
      onClose={onClose}
      submitting={convert.isPending}
      submitLabel={t('convert.submit')}
      onSubmit={(e) => {
        e.preventDefault();
        if (!whatsappId) return;
        convert.mutate(
          { whatsappId: Number(whatsappId), ...(name.trim() ? { name: name.trim() } : {}) },
          {
            onSuccess: (flow) => {
              toast.success('flows:convert.done');
              onClose();
              void navigate(`/flows/${flow.id}`);
            },
            onError: (err) => toast.error(err),
          },
        );
      }}
    >
      <Typography variant="body2" color="text.secondary">
        {t('convert.help')}
      </Typography>
      <TextField
        select
        required
        label={t('convert.connection')}
        value={whatsappId}
        onChange={(e) => setWhatsappId(e.target.value)}
        slotProps={{ htmlInput: { 'data-testid': 'flow-convert-connection' } }}
      >
        {(connections.data ?? []).map((w) => (
          <MenuItem key={w.id} value={String(w.id)}>
            {w.name}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        label={t('convert.name')}
        value={name}
        onChange={(e) => setName(e.target.value)}
        helperText={t('convert.nameHelp')}
        slotProps={{ htmlInput: { maxLength: 100 } }}
      />
    </FormDialog>
  );
}

const fileName = (name: string) =>
  `${
    name
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .toLowerCase() || 'flow'
  }.flow.json`;

/** Flows (docs/flows.md): list, create, rename, delete, duplicate, import and export JSON files, convert the bot. */
export default function FlowsPage() {
  const { t } = useFlowT();
  const toast = useToast();
  const navigate = useNavigate();
  const { dateTime } = useDateFormat();
  const create = useCreateFlow();
  const importFlow = useImportFlow();
  const fileInput = useRef<HTMLInputElement>(null);
  const [pending, setPending] = useState<{ file: FlowExportFile; missing: FlowMissingReference[] } | null>(
    null,
  );
  const [converting, setConverting] = useState(false);

  const opened = (flow: Flow) => {
    toast.success('flows:import.done', { name: flow.name });
    void navigate(`/flows/${flow.id}`);
  };
  const sendImport = async (file: FlowExportFile, mapping: FlowIdMapping) => {
    try {
      const flow = await importFlow.mutateAsync({ file, mapping });
      setPending(null);
      opened(flow);
    } catch (err) {
      const missing = (
        err instanceof ApiError && err.code === 'ERR_FLOW_IMPORT_UNMAPPED'
          ? (err.body as { missing?: FlowMissingReference[] } | undefined)?.missing
          : undefined
      ) as FlowMissingReference[] | undefined;
      if (missing?.length) setPending({ file, missing });
      else toast.error(err);
    }
  };
  const onFile = async (file: File | undefined) => {
    if (!file) return;
    let parsed: ReturnType<typeof FlowExportFile.safeParse>;
    try {
      parsed = FlowExportFile.safeParse(JSON.parse(await file.text()));
    } catch {
      toast.warning('flows:import.invalid');
      return;
    }
    if (!parsed.success) {
      toast.warning('flows:import.invalid');
      return;
    }
    await sendImport(parsed.data, {});
  };
  const download = async (flow: FlowSummary) => {
    try {
      const data = await exportFlow(flow.id);
      const url = URL.createObjectURL(
        new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }),
      );
      const a = document.createElement('a');
      a.href = url;
      a.download = fileName(flow.name);
      a.click();
      window.setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (err) {
      toast.error(err);
    }
  };
  const duplicate = async (flow: FlowSummary) => {
    try {
      const full = await api.get<Flow>(`/flows/${flow.id}`);
      const copy = await create.mutateAsync({
        name: t('list.copyName', { name: full.name }).slice(0, 100),
        description: full.description,
        graph: docGraph(full),
      });
      toast.success('flows:list.duplicated', { name: copy.name });
    } catch (err) {
      toast.error(err);
    }
  };

  const columns: ResourceColumn<FlowSummary>[] = [
    {
      header: t('list.name'),
      cell: (f) => (
        <>
          <Link
            component={RouterLink}
            to={`/flows/${f.id}`}
            underline="hover"
            sx={{ fontWeight: 500 }}
            data-testid="flow-open"
          >
            {f.name}
          </Link>
          {f.description ? (
            <Typography
              variant="caption"
              color="text.secondary"
              component="div"
              noWrap
              sx={{ maxWidth: 420 }}
            >
              {f.description}
            </Typography>
          ) : null}
        </>
      ),
    },
    {
      header: t('list.status'),
      headSx: { width: 220 },
      cellProps: () => ({ 'data-testid': 'flow-status' }),
      cell: (f) => (
        <Stack direction="row" spacing={0.5} sx={{ flexWrap: 'wrap', rowGap: 0.5 }}>
          {f.publishedVersion ? (
            <Chip
              size="small"
              color="success"
              label={t('status.publishedVersion', { version: f.publishedVersion })}
            />
          ) : (
            <Chip size="small" label={t('status.draft')} />
          )}
          {f.publishedVersion && f.draftChanged ? (
            <Chip size="small" variant="outlined" color="warning" label={t('status.draftChanged')} />
          ) : null}
          {!f.active ? <Chip size="small" variant="outlined" label={t('status.inactive')} /> : null}
        </Stack>
      ),
    },
    {
      header: t('list.updatedAt'),
      headSx: { width: 170, ...(FROM_MD as object) },
      cell: (f) => dateTime(f.updatedAt),
    },
  ];

  return (
    <>
      <ResourceListPage
        resource={flowResource}
        i18n="flows:list"
        label={t('menu.flows')}
        columns={columns}
        testIds={{ list: 'flows-list', row: 'flow-row', add: 'flow-add' }}
        rowProps={(f) => ({ 'data-name': f.name, 'data-id': f.id })}
        actionsWidth={210}
        deleteTitle={{ value: (f) => f.name }}
        tools={
          <>
            <Button
              variant="outlined"
              startIcon={<FileUploadOutlinedIcon />}
              onClick={() => fileInput.current?.click()}
              data-testid="flow-import"
            >
              {t('list.import')}
            </Button>
            <Button
              variant="outlined"
              startIcon={<TransformOutlinedIcon />}
              onClick={() => setConverting(true)}
              data-testid="flow-convert"
            >
              {t('list.convert')}
            </Button>
          </>
        }
        extraActions={(f) => (
          <>
            <Tooltip title={t('list.open')}>
              <IconButton
                size="small"
                component={RouterLink}
                to={`/flows/${f.id}`}
                aria-label={t('list.open')}
              >
                <OpenInNewOutlinedIcon fontSize="small" />
              </IconButton>
            </Tooltip>
            <Tooltip title={t('list.export')}>
              <IconButton
                size="small"
                aria-label={t('list.export')}
                onClick={() => void download(f)}
                data-testid="flow-export"
              >
                <FileDownloadOutlinedIcon fontSize="small" />
              </IconButton>
            </Tooltip>
            <Tooltip title={t('list.duplicate')}>
              <IconButton
                size="small"
                aria-label={t('list.duplicate')}
                onClick={() => void duplicate(f)}
                data-testid="flow-duplicate"
              >
                <ContentCopyOutlinedIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          </>
        )}
        renderDialog={(d) => <FlowDialog open={d.open} flow={d.record} onClose={d.onClose} />}
      />
      <Box
        component="input"
        ref={fileInput}
        type="file"
        accept="application/json,.json"
        data-testid="flow-import-file"
        sx={{ display: 'none' }}
        onChange={(e: ChangeEvent<HTMLInputElement>) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          void onFile(file);
        }}
      />
      <MappingDialog
        missing={pending?.missing ?? []}
        onClose={() => setPending(null)}
        onSubmit={(mapping) => (pending ? sendImport(pending.file, mapping) : Promise.resolve())}
      />
      <ConvertDialog open={converting} onClose={() => setConverting(false)} />
    </>
  );
}
