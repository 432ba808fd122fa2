import type { ReactNode } from 'react';
import {
  Autocomplete,
  Box,
  Button,
  Chip,
  Divider,
  FormControlLabel,
  IconButton,
  MenuItem,
  Stack,
  Switch,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import {
  CHANNEL_KINDS,
  CONDITION_OPERATORS,
  FLOW_OPTION_DISPLAYS,
  HTTP_METHODS,
  QUESTION_VALIDATIONS,
  WEEKDAYS,
  type FlowConditionRule,
  type FlowIssue,
  type FlowNode,
  type FlowNodeOf,
  type FlowOption,
  type FlowSetAction,
} from '@recado/contracts';
import { NODE_META } from './node-meta.js';
import { useFlowT } from './flow-i18n.js';
import { VariableField } from './VariableField.js';
import { issueText } from './node-text.js';
import { nodeName } from './graph.js';
import type { FlowPickers, PickOption } from './pickers.js';

type Change<N extends FlowNode> = (data: N['data'], key: string) => void;

/** `{prefix}{n}`: the first not taken (ids of options, rules and branches inside one node). */
export const nextLocalId = (prefix: string, taken: string[]) => {
  for (let i = 1; ; i++) if (!taken.includes(`${prefix}${i}`)) return `${prefix}${i}`;
};

const toNumber = (raw: string, fallback: number) => {
  const n = Number(raw);
  return raw.trim() === '' || !Number.isFinite(n) ? fallback : Math.trunc(n);
};

function NumberField({
  label,
  value,
  onChange,
  min,
  max,
  field,
  helperText,
}: {
  label: string;
  value: number;
  onChange(v: number): void;
  min: number;
  max: number;
  field: string;
  helperText?: string;
}) {
  return (
    <TextField
      type="number"
      label={label}
      value={value}
      helperText={helperText}
      error={value < min || value > max}
      onChange={(e) => onChange(toNumber(e.target.value, min))}
      slotProps={{ htmlInput: { min, max, 'data-field': field } }}
    />
  );
}

/** A select of the company's records of one kind (queues, users...), `0`/null meaning none. */
function PickField({
  label,
  value,
  onChange,
  options,
  field,
  allowNone = false,
  noneLabel,
  helperText,
}: {
  label: string;
  value: number | null | undefined;
  onChange(v: number | null): void;
  options: PickOption[];
  field: string;
  allowNone?: boolean;
  noneLabel?: string;
  helperText?: string;
}) {
  const { t } = useFlowT();
  const known = !value || options.some((o) => o.id === value);
  return (
    <TextField
      select
      label={label}
      value={value ? String(value) : ''}
      onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}
      error={!allowNone && !value}
      helperText={helperText ?? (!options.length ? t('panel.noneToPick') : undefined)}
      slotProps={{
        htmlInput: { 'data-field': field },
        select: { displayEmpty: true },
        inputLabel: { shrink: true },
      }}
    >
      <MenuItem value="" disabled={!allowNone}>
        <em>{noneLabel ?? t('panel.choose')}</em>
      </MenuItem>
      {options.map((o) => (
        <MenuItem key={o.id} value={String(o.id)}>
          {o.color ? (
            <Box
              component="span"
              sx={{ width: 10, height: 10, borderRadius: '50%', bgcolor: o.color, mr: 1 }}
            />
          ) : null}
          {o.name}
        </MenuItem>
      ))}
      {!known ? (
        <MenuItem value={String(value)} disabled>
          {t('panel.missingRecord', { id: value })}
        </MenuItem>
      ) : null}
    </TextField>
  );
}

function Section({ title, children, action }: { title: string; children: ReactNode; action?: ReactNode }) {
  return (
    <Box>
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', mb: 1 }}>
        <Typography variant="subtitle2">{title}</Typography>
        {action}
      </Box>
      <Stack spacing={1.5}>{children}</Stack>
    </Box>
  );
}

const RemoveButton = ({ onClick, label }: { onClick(): void; label: string }) => (
  <Tooltip title={label}>
    <IconButton size="small" aria-label={label} onClick={onClick}>
      <DeleteOutlinedIcon fontSize="small" />
    </IconButton>
  </Tooltip>
);

/** Buttons/list/numbered options of a message or a question: label and stored value per option. */
function OptionsEditor({
  options,
  display,
  onChange,
  keyPrefix,
}: {
  options: FlowOption[];
  display: (typeof FLOW_OPTION_DISPLAYS)[number];
  onChange(options: FlowOption[], display: (typeof FLOW_OPTION_DISPLAYS)[number], key: string): void;
  keyPrefix: string;
}) {
  const { t } = useFlowT();
  const set = (i: number, patch: Partial<FlowOption>, key: string) =>
    onChange(
      options.map((o, k) => (k === i ? { ...o, ...patch } : o)),
      display,
      `${keyPrefix}.options.${i}.${key}`,
    );
  return (
    <Section
      title={t('panel.options')}
      action={
        <Button
          size="small"
          startIcon={<AddIcon />}
          disabled={options.length >= 10}
          onClick={() =>
            onChange(
              [
                ...options,
                {
                  id: nextLocalId(
                    'o',
                    options.map((o) => o.id),
                  ),
                  label: t('panel.optionN', { n: options.length + 1 }),
                },
              ],
              display,
              `${keyPrefix}.options.add`,
            )
          }
        >
          {t('panel.addOption')}
        </Button>
      }
    >
      {options.map((o, i) => (
        <Stack key={o.id} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <TextField
            label={t('panel.optionLabel')}
            value={o.label}
            error={!o.label.trim()}
            onChange={(e) => set(i, { label: e.target.value }, 'label')}
            slotProps={{ htmlInput: { maxLength: 100, 'data-field': `option-label-${i}` } }}
          />
          <TextField
            label={t('panel.optionValue')}
            value={o.value ?? ''}
            placeholder={o.label}
            onChange={(e) => set(i, { value: e.target.value || undefined }, 'value')}
            slotProps={{ htmlInput: { maxLength: 200 }, inputLabel: { shrink: true } }}
          />
          <RemoveButton
            label={t('panel.remove')}
            onClick={() =>
              onChange(
                options.filter((_, k) => k !== i),
                display,
                `${keyPrefix}.options.remove`,
              )
            }
          />
        </Stack>
      ))}
      {options.length ? (
        <TextField
          select
          label={t('panel.optionsDisplay')}
          value={display}
          onChange={(e) => onChange(options, e.target.value as typeof display, `${keyPrefix}.display`)}
          helperText={t('panel.optionsDisplayHelp')}
        >
          {FLOW_OPTION_DISPLAYS.map((d) => (
            <MenuItem key={d} value={d}>
              {t(`optionDisplays.${d}`)}
            </MenuItem>
          ))}
        </TextField>
      ) : null}
    </Section>
  );
}

function StartFields({
  node,
  onChange,
  pickers,
}: {
  node: FlowNodeOf<'start'>;
  onChange: Change<FlowNodeOf<'start'>>;
  pickers: FlowPickers;
}) {
  const { t } = useFlowT();
  const d = node.data;
  return (
    <>
      <Typography variant="body2" color="text.secondary">
        {t('panel.startHelp')}
      </Typography>
      <Autocomplete
        multiple
        freeSolo
        options={[]}
        value={d.keywords}
        onChange={(_e, v) =>
          onChange({ ...d, keywords: v.map((x) => String(x).trim()).filter(Boolean) }, 'keywords')
        }
        renderValue={(value, getItemProps) =>
          value.map((k, index) => {
            const { key, ...rest } = getItemProps({ index });
            return <Chip key={key} size="small" label={k} {...rest} />;
          })
        }
        renderInput={(params) => (
          <TextField
            {...params}
            label={t('panel.keywords')}
            helperText={t('panel.keywordsHelp')}
            slotProps={{
              ...params.slotProps,
              htmlInput: { ...params.slotProps.htmlInput, 'data-field': 'keywords' },
            }}
          />
        )}
      />
      <TextField
        select
        label={t('panel.keywordMatch')}
        value={d.keywordMatch}
        onChange={(e) =>
          onChange({ ...d, keywordMatch: e.target.value as 'exact' | 'contains' }, 'keywordMatch')
        }
      >
        <MenuItem value="exact">{t('panel.keywordExact')}</MenuItem>
        <MenuItem value="contains">{t('panel.keywordContains')}</MenuItem>
      </TextField>
      <NumberField
        label={t('panel.priority')}
        value={d.priority}
        min={0}
        max={1000}
        field="priority"
        helperText={t('panel.priorityHelp')}
        onChange={(v) => onChange({ ...d, priority: v }, 'priority')}
      />
      <FormControlLabel
        control={
          <Switch
            checked={d.outOfHours}
            onChange={(e) => onChange({ ...d, outOfHours: e.target.checked }, 'outOfHours')}
          />
        }
        label={t('panel.outOfHours')}
      />
      <FormControlLabel
        control={
          <Switch
            checked={d.campaignReply}
            onChange={(e) => onChange({ ...d, campaignReply: e.target.checked }, 'campaignReply')}
          />
        }
        label={t('panel.campaignReply')}
      />
      {d.campaignReply && pickers.plan.campaigns ? (
        <Autocomplete
          multiple
          options={pickers.lists.campaign}
          getOptionLabel={(o) => o.name}
          isOptionEqualToValue={(a, b) => a.id === b.id}
          value={pickers.lists.campaign.filter((c) => d.campaignIds.includes(c.id))}
          onChange={(_e, v) => onChange({ ...d, campaignIds: v.map((c) => c.id) }, 'campaignIds')}
          renderInput={(params) => (
            <TextField {...params} label={t('panel.campaigns')} helperText={t('panel.campaignsHelp')} />
          )}
        />
      ) : null}
    </>
  );
}

function MessageFields({
  node,
  onChange,
  pickers,
  variables,
}: {
  node: FlowNodeOf<'message'>;
  onChange: Change<FlowNodeOf<'message'>>;
  pickers: FlowPickers;
  variables: string[];
}) {
  const { t } = useFlowT();
  const d = node.data;
  const files = pickers.lists.file.filter((f) => f.kind === String(d.fileListId ?? ''));
  return (
    <>
      <VariableField
        label={t('panel.text')}
        value={d.text}
        multiline
        minRows={3}
        field="text"
        variables={variables}
        helperText={t('panel.textHelp', { a: '{{name}}' })}
        onChange={(text) => onChange({ ...d, text }, 'text')}
      />
      <PickField
        label={t('panel.fileList')}
        value={d.fileListId}
        options={pickers.lists.fileList}
        field="fileListId"
        allowNone
        noneLabel={t('panel.noFile')}
        onChange={(v) => onChange({ ...d, fileListId: v, fileId: null }, 'fileListId')}
      />
      {d.fileListId ? (
        <PickField
          label={t('panel.file')}
          value={d.fileId}
          options={files}
          field="fileId"
          allowNone
          noneLabel={t('panel.wholeList')}
          onChange={(v) => onChange({ ...d, fileId: v }, 'fileId')}
        />
      ) : null}
      <OptionsEditor
        options={d.options}
        display={d.optionsDisplay}
        keyPrefix="message"
        onChange={(options, optionsDisplay, key) => onChange({ ...d, options, optionsDisplay }, key)}
      />
    </>
  );
}

function QuestionFields({
  node,
  onChange,
  variables,
}: {
  node: FlowNodeOf<'question'>;
  onChange: Change<FlowNodeOf<'question'>>;
  variables: string[];
}) {
  const { t } = useFlowT();
  const d = node.data;
  const badVariable = !/^[A-Za-z][A-Za-z0-9_]*$/.test(d.variable);
  return (
    <>
      <VariableField
        label={t('panel.question')}
        value={d.text}
        multiline
        minRows={2}
        field="text"
        variables={variables}
        error={!d.text.trim()}
        onChange={(text) => onChange({ ...d, text }, 'text')}
      />
      <TextField
        label={t('panel.saveAs')}
        value={d.variable}
        error={badVariable}
        helperText={
          badVariable ? t('panel.variableInvalid') : t('panel.saveAsHelp', { token: `{{${d.variable}}}` })
        }
        onChange={(e) => onChange({ ...d, variable: e.target.value.trim() }, 'variable')}
        slotProps={{ htmlInput: { maxLength: 50, 'data-field': 'variable' } }}
      />
      <TextField
        select
        label={t('panel.validation')}
        value={d.validation}
        onChange={(e) => onChange({ ...d, validation: e.target.value as typeof d.validation }, 'validation')}
        slotProps={{ htmlInput: { 'data-field': 'validation' } }}
      >
        {QUESTION_VALIDATIONS.map((v) => (
          <MenuItem key={v} value={v}>
            {t(`validations.${v}`)}
          </MenuItem>
        ))}
      </TextField>
      {d.validation === 'option' || d.options.length ? (
        <OptionsEditor
          options={d.options}
          display={d.optionsDisplay}
          keyPrefix="question"
          onChange={(options, optionsDisplay, key) => onChange({ ...d, options, optionsDisplay }, key)}
        />
      ) : null}
      <VariableField
        label={t('panel.retryMessage')}
        value={d.retryMessage}
        multiline
        field="retryMessage"
        variables={variables}
        helperText={t('panel.retryHelp')}
        onChange={(retryMessage) => onChange({ ...d, retryMessage }, 'retryMessage')}
      />
      <Stack direction="row" spacing={1}>
        <NumberField
          label={t('panel.maxRetries')}
          value={d.maxRetries}
          min={0}
          max={10}
          field="maxRetries"
          onChange={(maxRetries) => onChange({ ...d, maxRetries }, 'maxRetries')}
        />
        <NumberField
          label={t('panel.timeoutMinutes')}
          value={d.timeoutMinutes}
          min={1}
          max={43200}
          field="timeoutMinutes"
          onChange={(timeoutMinutes) => onChange({ ...d, timeoutMinutes }, 'timeoutMinutes')}
        />
      </Stack>
    </>
  );
}

const VALUELESS = new Set(['empty', 'not_empty']);

function RuleFields({
  rule,
  onChange,
  pickers,
  variables,
}: {
  rule: FlowConditionRule;
  onChange(rule: FlowConditionRule, key: string): void;
  pickers: FlowPickers;
  variables: string[];
}) {
  const { t } = useFlowT();
  const compare = (r: Extract<FlowConditionRule, { kind: 'variable' | 'contact_field' }>) => (
    <>
      <TextField
        select
        label={t('panel.operator')}
        value={r.op}
        onChange={(e) => onChange({ ...r, op: e.target.value as typeof r.op }, `${r.id}.op`)}
      >
        {CONDITION_OPERATORS.map((op) => (
          <MenuItem key={op} value={op}>
            {t(`operators.${op}`)}
          </MenuItem>
        ))}
      </TextField>
      {VALUELESS.has(r.op) ? null : (
        <VariableField
          label={t('panel.value')}
          value={r.value}
          field={`rule-value-${r.id}`}
          variables={variables}
          helperText=""
          onChange={(value) => onChange({ ...r, value }, `${r.id}.value`)}
        />
      )}
    </>
  );
  switch (rule.kind) {
    case 'variable':
      return (
        <>
          <Autocomplete
            freeSolo
            options={variables.filter((v) => !v.includes('.'))}
            value={rule.name}
            onInputChange={(_e, name) => onChange({ ...rule, name: name.trim() }, `${rule.id}.name`)}
            renderInput={(params) => <TextField {...params} label={t('panel.variable')} />}
          />
          {compare(rule)}
        </>
      );
    case 'contact_field':
      return (
        <>
          <Autocomplete
            freeSolo
            options={['name', 'number', 'email']}
            value={rule.field}
            onInputChange={(_e, field) => onChange({ ...rule, field }, `${rule.id}.field`)}
            renderInput={(params) => (
              <TextField
                {...params}
                label={t('panel.contactField')}
                helperText={t('panel.contactFieldHelp')}
              />
            )}
          />
          {compare(rule)}
        </>
      );
    case 'tag':
      return (
        <>
          <TextField
            select
            label={t('panel.operator')}
            value={rule.op}
            onChange={(e) => onChange({ ...rule, op: e.target.value as typeof rule.op }, `${rule.id}.op`)}
          >
            <MenuItem value="has">{t('operators.has')}</MenuItem>
            <MenuItem value="not_has">{t('operators.not_has')}</MenuItem>
          </TextField>
          <PickField
            label={t('panel.tag')}
            value={rule.tagId}
            options={pickers.lists.tag}
            field={`rule-tag-${rule.id}`}
            onChange={(v) => onChange({ ...rule, tagId: v ?? 0 }, `${rule.id}.tag`)}
          />
        </>
      );
    case 'business_hours':
      return (
        <>
          <TextField
            select
            label={t('panel.operator')}
            value={rule.op}
            onChange={(e) => onChange({ ...rule, op: e.target.value as typeof rule.op }, `${rule.id}.op`)}
          >
            <MenuItem value="open">{t('operators.open')}</MenuItem>
            <MenuItem value="closed">{t('operators.closed')}</MenuItem>
          </TextField>
          <PickField
            label={t('panel.hoursOf')}
            value={rule.queueId}
            options={pickers.lists.queue}
            field={`rule-queue-${rule.id}`}
            allowNone
            noneLabel={t('panel.companyHours')}
            onChange={(v) => onChange({ ...rule, queueId: v }, `${rule.id}.queue`)}
          />
        </>
      );
    case 'weekday_time':
      return (
        <>
          <ToggleButtonGroup
            size="small"
            value={rule.weekdays}
            onChange={(_e, weekdays: typeof rule.weekdays) =>
              onChange({ ...rule, weekdays }, `${rule.id}.weekdays`)
            }
            sx={{ flexWrap: 'wrap' }}
          >
            {WEEKDAYS.map((w) => (
              <ToggleButton key={w} value={w} sx={{ px: 1, py: 0.25 }}>
                {t(`weekdays.${w}`)}
              </ToggleButton>
            ))}
          </ToggleButtonGroup>
          <Stack direction="row" spacing={1}>
            {(['from', 'to'] as const).map((k) => (
              <TextField
                key={k}
                label={t(`panel.${k}`)}
                value={rule[k]}
                placeholder="HH:MM"
                error={!/^([01]\d|2[0-3]):[0-5]\d$/.test(rule[k])}
                onChange={(e) => onChange({ ...rule, [k]: e.target.value }, `${rule.id}.${k}`)}
                slotProps={{ htmlInput: { maxLength: 5, inputMode: 'numeric' } }}
              />
            ))}
          </Stack>
        </>
      );
    case 'channel':
      return (
        <>
          <TextField
            select
            label={t('panel.operator')}
            value={rule.op}
            onChange={(e) => onChange({ ...rule, op: e.target.value as typeof rule.op }, `${rule.id}.op`)}
          >
            <MenuItem value="is">{t('operators.is')}</MenuItem>
            <MenuItem value="is_not">{t('operators.is_not')}</MenuItem>
          </TextField>
          <TextField
            select
            label={t('panel.channel')}
            value={rule.channel}
            onChange={(e) =>
              onChange({ ...rule, channel: e.target.value as typeof rule.channel }, `${rule.id}.channel`)
            }
          >
            {CHANNEL_KINDS.map((c) => (
              <MenuItem key={c} value={c}>
                {t(`channels.${c}`)}
              </MenuItem>
            ))}
          </TextField>
        </>
      );
  }
}

const RULE_KINDS: FlowConditionRule['kind'][] = [
  'variable',
  'contact_field',
  'tag',
  'business_hours',
  'weekday_time',
  'channel',
];

function newRule(kind: FlowConditionRule['kind'], id: string): FlowConditionRule {
  switch (kind) {
    case 'variable':
      return { id, kind, name: '', op: 'eq', value: '' };
    case 'contact_field':
      return { id, kind, field: 'name', op: 'not_empty', value: '' };
    case 'tag':
      return { id, kind, op: 'has', tagId: 0 };
    case 'business_hours':
      return { id, kind, op: 'open', queueId: null };
    case 'weekday_time':
      return {
        id,
        kind,
        weekdays: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
        from: '08:00',
        to: '18:00',
      };
    case 'channel':
      return { id, kind, op: 'is', channel: 'baileys' };
  }
}

function ConditionFields({
  node,
  onChange,
  pickers,
  variables,
}: {
  node: FlowNodeOf<'condition'>;
  onChange: Change<FlowNodeOf<'condition'>>;
  pickers: FlowPickers;
  variables: string[];
}) {
  const { t } = useFlowT();
  const d = node.data;
  const setRule = (i: number, rule: FlowConditionRule, key: string) =>
    onChange({ ...d, rules: d.rules.map((r, k) => (k === i ? rule : r)) }, `rule.${key}`);
  return (
    <>
      <TextField
        select
        label={t('panel.mode')}
        value={d.mode}
        onChange={(e) => onChange({ ...d, mode: e.target.value as typeof d.mode }, 'mode')}
        helperText={t(`panel.modeHelp.${d.mode}`)}
        slotProps={{ htmlInput: { 'data-field': 'mode' } }}
      >
        {(['all', 'any', 'switch'] as const).map((m) => (
          <MenuItem key={m} value={m}>
            {t(`modes.${m}`)}
          </MenuItem>
        ))}
      </TextField>
      <Section
        title={t('panel.rules')}
        action={
          <Button
            size="small"
            startIcon={<AddIcon />}
            disabled={d.rules.length >= 20}
            onClick={() =>
              onChange(
                {
                  ...d,
                  rules: [
                    ...d.rules,
                    newRule(
                      'variable',
                      nextLocalId(
                        'r',
                        d.rules.map((r) => r.id),
                      ),
                    ),
                  ],
                },
                'rules.add',
              )
            }
          >
            {t('panel.addRule')}
          </Button>
        }
      >
        {d.rules.map((rule, i) => (
          <Box key={rule.id} sx={{ border: 1, borderColor: 'divider', borderRadius: 1, p: 1.25 }}>
            <Stack spacing={1.25}>
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                <Typography variant="caption" color="text.secondary" sx={{ whiteSpace: 'nowrap' }}>
                  {t('exits.rule', { n: i + 1 })}
                </Typography>
                <TextField
                  select
                  label={t('panel.ruleKind')}
                  value={rule.kind}
                  onChange={(e) =>
                    setRule(
                      i,
                      newRule(e.target.value as FlowConditionRule['kind'], rule.id),
                      `${rule.id}.kind`,
                    )
                  }
                >
                  {RULE_KINDS.map((k) => (
                    <MenuItem key={k} value={k}>
                      {t(`ruleKinds.${k}`)}
                    </MenuItem>
                  ))}
                </TextField>
                {d.rules.length > 1 ? (
                  <RemoveButton
                    label={t('panel.remove')}
                    onClick={() =>
                      onChange({ ...d, rules: d.rules.filter((_, k) => k !== i) }, 'rules.remove')
                    }
                  />
                ) : null}
              </Stack>
              <RuleFields
                rule={rule}
                pickers={pickers}
                variables={variables}
                onChange={(r, key) => setRule(i, r, key)}
              />
            </Stack>
          </Box>
        ))}
      </Section>
    </>
  );
}

function SetFields({
  node,
  onChange,
  pickers,
  variables,
}: {
  node: FlowNodeOf<'set'>;
  onChange: Change<FlowNodeOf<'set'>>;
  pickers: FlowPickers;
  variables: string[];
}) {
  const { t } = useFlowT();
  const d = node.data;
  const setAction = (i: number, a: FlowSetAction, key: string) =>
    onChange({ ...d, actions: d.actions.map((x, k) => (k === i ? a : x)) }, `action.${i}.${key}`);
  const blank = (kind: FlowSetAction['kind']): FlowSetAction =>
    kind === 'variable'
      ? { kind, name: '', value: '' }
      : kind === 'contact_field'
        ? { kind, field: 'email', value: '' }
        : { kind, op: 'add', tagId: 0 };
  return (
    <Section
      title={t('panel.actions')}
      action={
        <Button
          size="small"
          startIcon={<AddIcon />}
          disabled={d.actions.length >= 20}
          onClick={() => onChange({ ...d, actions: [...d.actions, blank('variable')] }, 'actions.add')}
        >
          {t('panel.addAction')}
        </Button>
      }
    >
      {d.actions.map((a, i) => (
        <Box key={i} sx={{ border: 1, borderColor: 'divider', borderRadius: 1, p: 1.25 }}>
          <Stack spacing={1.25}>
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <TextField
                select
                label={t('panel.actionKind')}
                value={a.kind}
                onChange={(e) => setAction(i, blank(e.target.value as FlowSetAction['kind']), 'kind')}
              >
                {(['variable', 'contact_field', 'tag'] as const).map((k) => (
                  <MenuItem key={k} value={k}>
                    {t(`actionKinds.${k}`)}
                  </MenuItem>
                ))}
              </TextField>
              {d.actions.length > 1 ? (
                <RemoveButton
                  label={t('panel.remove')}
                  onClick={() =>
                    onChange({ ...d, actions: d.actions.filter((_, k) => k !== i) }, 'actions.remove')
                  }
                />
              ) : null}
            </Stack>
            {a.kind === 'variable' ? (
              <>
                <TextField
                  label={t('panel.variable')}
                  value={a.name}
                  error={!/^[A-Za-z][A-Za-z0-9_]*$/.test(a.name)}
                  onChange={(e) => setAction(i, { ...a, name: e.target.value.trim() }, 'name')}
                  slotProps={{ htmlInput: { maxLength: 50 } }}
                />
                <VariableField
                  label={t('panel.value')}
                  value={a.value}
                  field={`set-value-${i}`}
                  variables={variables}
                  onChange={(value) => setAction(i, { ...a, value }, 'value')}
                />
              </>
            ) : a.kind === 'contact_field' ? (
              <>
                <Autocomplete
                  freeSolo
                  options={['name', 'email']}
                  value={a.field}
                  onInputChange={(_e, field) => setAction(i, { ...a, field }, 'field')}
                  renderInput={(params) => (
                    <TextField
                      {...params}
                      label={t('panel.contactField')}
                      helperText={t('panel.contactFieldSetHelp')}
                    />
                  )}
                />
                <VariableField
                  label={t('panel.value')}
                  value={a.value}
                  field={`set-value-${i}`}
                  variables={variables}
                  onChange={(value) => setAction(i, { ...a, value }, 'value')}
                />
              </>
            ) : (
              <>
                <TextField
                  select
                  label={t('panel.operator')}
                  value={a.op}
                  onChange={(e) => setAction(i, { ...a, op: e.target.value as 'add' | 'remove' }, 'op')}
                >
                  <MenuItem value="add">{t('operators.add')}</MenuItem>
                  <MenuItem value="remove">{t('operators.remove')}</MenuItem>
                </TextField>
                <PickField
                  label={t('panel.tag')}
                  value={a.tagId}
                  options={pickers.lists.tag}
                  field={`set-tag-${i}`}
                  onChange={(v) => setAction(i, { ...a, tagId: v ?? 0 }, 'tag')}
                />
              </>
            )}
          </Stack>
        </Box>
      ))}
    </Section>
  );
}

function HttpFields({
  node,
  onChange,
  variables,
}: {
  node: FlowNodeOf<'http'>;
  onChange: Change<FlowNodeOf<'http'>>;
  variables: string[];
}) {
  const { t } = useFlowT();
  const d = node.data;
  return (
    <>
      <Stack direction="row" spacing={1}>
        <TextField
          select
          label={t('panel.method')}
          value={d.method}
          sx={{ maxWidth: 120 }}
          onChange={(e) => onChange({ ...d, method: e.target.value as typeof d.method }, 'method')}
        >
          {HTTP_METHODS.map((m) => (
            <MenuItem key={m} value={m}>
              {m}
            </MenuItem>
          ))}
        </TextField>
        <VariableField
          label={t('panel.url')}
          value={d.url}
          field="url"
          variables={variables}
          helperText=""
          error={!d.url.trim()}
          onChange={(url) => onChange({ ...d, url }, 'url')}
        />
      </Stack>
      <Typography variant="caption" color="text.secondary">
        {t('panel.urlHelp')}
      </Typography>
      <Section
        title={t('panel.headers')}
        action={
          <Button
            size="small"
            startIcon={<AddIcon />}
            disabled={d.headers.length >= 20}
            onClick={() =>
              onChange({ ...d, headers: [...d.headers, { name: '', value: '' }] }, 'headers.add')
            }
          >
            {t('panel.add')}
          </Button>
        }
      >
        {d.headers.map((h, i) => (
          <Stack key={i} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <TextField
              label={t('panel.headerName')}
              value={h.name}
              error={!h.name.trim()}
              onChange={(e) =>
                onChange(
                  { ...d, headers: d.headers.map((x, k) => (k === i ? { ...x, name: e.target.value } : x)) },
                  `headers.${i}.name`,
                )
              }
            />
            <TextField
              label={t('panel.value')}
              value={h.value}
              onChange={(e) =>
                onChange(
                  { ...d, headers: d.headers.map((x, k) => (k === i ? { ...x, value: e.target.value } : x)) },
                  `headers.${i}.value`,
                )
              }
            />
            <RemoveButton
              label={t('panel.remove')}
              onClick={() =>
                onChange({ ...d, headers: d.headers.filter((_, k) => k !== i) }, 'headers.remove')
              }
            />
          </Stack>
        ))}
      </Section>
      {d.method !== 'GET' ? (
        <VariableField
          label={t('panel.body')}
          value={d.body}
          multiline
          minRows={3}
          field="body"
          variables={variables}
          onChange={(body) => onChange({ ...d, body }, 'body')}
        />
      ) : null}
      <Section
        title={t('panel.responseMap')}
        action={
          <Button
            size="small"
            startIcon={<AddIcon />}
            disabled={d.responseMap.length >= 30}
            onClick={() =>
              onChange(
                { ...d, responseMap: [...d.responseMap, { path: '', variable: '' }] },
                'responseMap.add',
              )
            }
          >
            {t('panel.add')}
          </Button>
        }
      >
        <Typography variant="caption" color="text.secondary">
          {t('panel.responseMapHelp')}
        </Typography>
        {d.responseMap.map((m, i) => (
          <Stack key={i} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <TextField
              label={t('panel.jsonPath')}
              value={m.path}
              placeholder="customer.queue"
              error={!m.path.trim()}
              onChange={(e) =>
                onChange(
                  {
                    ...d,
                    responseMap: d.responseMap.map((x, k) => (k === i ? { ...x, path: e.target.value } : x)),
                  },
                  `responseMap.${i}.path`,
                )
              }
              slotProps={{ htmlInput: { 'data-field': `response-path-${i}` } }}
            />
            <TextField
              label={t('panel.variable')}
              value={m.variable}
              error={!/^[A-Za-z][A-Za-z0-9_]*$/.test(m.variable)}
              onChange={(e) =>
                onChange(
                  {
                    ...d,
                    responseMap: d.responseMap.map((x, k) =>
                      k === i ? { ...x, variable: e.target.value.trim() } : x,
                    ),
                  },
                  `responseMap.${i}.variable`,
                )
              }
              slotProps={{ htmlInput: { 'data-field': `response-variable-${i}` } }}
            />
            <RemoveButton
              label={t('panel.remove')}
              onClick={() =>
                onChange({ ...d, responseMap: d.responseMap.filter((_, k) => k !== i) }, 'responseMap.remove')
              }
            />
          </Stack>
        ))}
      </Section>
      <Stack direction="row" spacing={1}>
        <TextField
          label={t('panel.statusVariable')}
          value={d.statusVariable ?? ''}
          onChange={(e) =>
            onChange({ ...d, statusVariable: e.target.value.trim() || undefined }, 'statusVariable')
          }
          slotProps={{ htmlInput: { maxLength: 50 } }}
        />
        <NumberField
          label={t('panel.timeoutSeconds')}
          value={d.timeoutSeconds}
          min={1}
          max={30}
          field="timeoutSeconds"
          onChange={(timeoutSeconds) => onChange({ ...d, timeoutSeconds }, 'timeoutSeconds')}
        />
      </Stack>
    </>
  );
}

function TransferFields({
  node,
  onChange,
  pickers,
  variables,
  flowId,
}: {
  node: FlowNodeOf<'transfer'>;
  onChange: Change<FlowNodeOf<'transfer'>>;
  pickers: FlowPickers;
  variables: string[];
  flowId: number;
}) {
  const { t } = useFlowT();
  const d = node.data;
  return (
    <>
      <TextField
        select
        label={t('panel.transferTo')}
        value={d.target}
        onChange={(e) => onChange({ ...d, target: e.target.value as typeof d.target }, 'target')}
        slotProps={{ htmlInput: { 'data-field': 'target' } }}
      >
        {(['queue', 'user', 'flow'] as const).map((x) => (
          <MenuItem key={x} value={x}>
            {t(`targets.${x}`)}
          </MenuItem>
        ))}
      </TextField>
      {d.target === 'user' ? (
        <PickField
          label={t('panel.user')}
          value={d.userId}
          options={pickers.lists.user}
          field="userId"
          onChange={(v) => onChange({ ...d, userId: v }, 'userId')}
        />
      ) : null}
      {d.target !== 'flow' ? (
        <PickField
          label={t('panel.queue')}
          value={d.queueId}
          options={pickers.lists.queue}
          field="queueId"
          allowNone={d.target === 'user'}
          noneLabel={d.target === 'user' ? t('panel.keepQueue') : undefined}
          onChange={(v) => onChange({ ...d, queueId: v }, 'queueId')}
        />
      ) : (
        <PickField
          label={t('panel.flow')}
          value={d.flowId}
          options={pickers.lists.flow.filter((f) => f.id !== flowId)}
          field="flowId"
          onChange={(v) => onChange({ ...d, flowId: v }, 'flowId')}
        />
      )}
      <VariableField
        label={t('panel.note')}
        value={d.note}
        multiline
        minRows={2}
        field="note"
        variables={variables}
        helperText={t('panel.noteHelp')}
        onChange={(note) => onChange({ ...d, note }, 'note')}
      />
    </>
  );
}

function RandomizerFields({
  node,
  onChange,
}: {
  node: FlowNodeOf<'randomizer'>;
  onChange: Change<FlowNodeOf<'randomizer'>>;
}) {
  const { t } = useFlowT();
  const d = node.data;
  const sum = d.branches.reduce((s, b) => s + b.percent, 0);
  return (
    <Section
      title={t('panel.branches')}
      action={
        <Button
          size="small"
          startIcon={<AddIcon />}
          disabled={d.branches.length >= 10}
          onClick={() => {
            const id = nextLocalId(
              'b',
              d.branches.map((b) => b.id),
            );
            onChange(
              {
                ...d,
                branches: [
                  ...d.branches,
                  { id, label: String.fromCharCode(65 + d.branches.length), percent: 0 },
                ],
              },
              'branches.add',
            );
          }}
        >
          {t('panel.add')}
        </Button>
      }
    >
      {d.branches.map((b, i) => (
        <Stack key={b.id} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <TextField
            label={t('panel.optionLabel')}
            value={b.label}
            onChange={(e) =>
              onChange(
                { ...d, branches: d.branches.map((x, k) => (k === i ? { ...x, label: e.target.value } : x)) },
                `branches.${i}.label`,
              )
            }
            slotProps={{ htmlInput: { maxLength: 50 } }}
          />
          <NumberField
            label="%"
            value={b.percent}
            min={0}
            max={100}
            field={`branch-percent-${i}`}
            onChange={(percent) =>
              onChange(
                { ...d, branches: d.branches.map((x, k) => (k === i ? { ...x, percent } : x)) },
                `branches.${i}.percent`,
              )
            }
          />
          {d.branches.length > 2 ? (
            <RemoveButton
              label={t('panel.remove')}
              onClick={() =>
                onChange({ ...d, branches: d.branches.filter((_, k) => k !== i) }, 'branches.remove')
              }
            />
          ) : null}
        </Stack>
      ))}
      <Typography variant="caption" color={sum === 100 ? 'text.secondary' : 'error'}>
        {t('panel.percentSum', { sum })}
      </Typography>
    </Section>
  );
}

/**
 * The side panel: the selected node's fields by type. Each change is one undo step per field (`key`); typing
 * in one field is one step. Issues of the node are listed on top.
 */
export function NodePanel({
  node,
  issues,
  variables,
  pickers,
  flowId,
  onChange,
  onDelete,
  onClose,
}: {
  node: FlowNode;
  issues: FlowIssue[];
  variables: string[];
  pickers: FlowPickers;
  flowId: number;
  onChange(data: FlowNode['data'], key: string): void;
  onDelete(): void;
  onClose(): void;
}) {
  const { t } = useFlowT();
  const meta = NODE_META[node.type];
  const Icon = meta.icon;
  const change = (data: FlowNode['data'], key: string) => onChange(data, `${node.id}:${key}`);
  const body = (() => {
    switch (node.type) {
      case 'start':
        return <StartFields node={node} onChange={change} pickers={pickers} />;
      case 'message':
        return <MessageFields node={node} onChange={change} pickers={pickers} variables={variables} />;
      case 'question':
        return <QuestionFields node={node} onChange={change} variables={variables} />;
      case 'condition':
        return <ConditionFields node={node} onChange={change} pickers={pickers} variables={variables} />;
      case 'set':
        return <SetFields node={node} onChange={change} pickers={pickers} variables={variables} />;
      case 'http':
        return <HttpFields node={node} onChange={change} variables={variables} />;
      case 'ai_prompt':
        return (
          <>
            <PickField
              label={t('panel.prompt')}
              value={node.data.promptId}
              options={pickers.lists.prompt}
              field="promptId"
              helperText={pickers.plan.ai ? t('panel.promptHelp') : t('panel.noPlan')}
              onChange={(v) => change({ ...node.data, promptId: v ?? 0 }, 'promptId')}
            />
          </>
        );
      case 'typebot':
      case 'n8n':
        return (
          <PickField
            label={t('panel.integration')}
            value={node.data.integrationId}
            options={pickers.lists.integration.filter((i) => i.kind === node.type)}
            field="integrationId"
            helperText={pickers.plan.integrations ? t('panel.integrationHelp') : t('panel.noPlan')}
            onChange={(v) => change({ ...node.data, integrationId: v ?? 0 }, 'integrationId')}
          />
        );
      case 'wait':
        return (
          <NumberField
            label={t('panel.waitMinutes')}
            value={node.data.minutes}
            min={1}
            max={43200}
            field="minutes"
            helperText={t('panel.waitHelp')}
            onChange={(minutes) => change({ ...node.data, minutes }, 'minutes')}
          />
        );
      case 'transfer':
        return (
          <TransferFields
            node={node}
            onChange={change}
            pickers={pickers}
            variables={variables}
            flowId={flowId}
          />
        );
      case 'close':
        return (
          <VariableField
            label={t('panel.closeMessage')}
            value={node.data.message}
            multiline
            minRows={2}
            field="message"
            variables={variables}
            helperText={t('panel.closeHelp')}
            onChange={(message) => change({ ...node.data, message }, 'message')}
          />
        );
      case 'randomizer':
        return <RandomizerFields node={node} onChange={change} />;
    }
  })();
  return (
    <Box
      data-testid="flow-node-panel"
      data-node={node.id}
      sx={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }}
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 2, py: 1.25 }}>
        <Icon sx={{ color: meta.color }} />
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Typography variant="subtitle1" sx={{ fontWeight: 600, lineHeight: 1.2 }} noWrap>
            {t(`types.${node.type}`)}
          </Typography>
          <Typography variant="caption" color="text.secondary" noWrap component="div">
            {node.id}
          </Typography>
        </Box>
        {node.type !== 'start' ? (
          <Tooltip title={t('panel.deleteNode')}>
            <IconButton size="small" aria-label={t('panel.deleteNode')} onClick={onDelete}>
              <DeleteOutlinedIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        ) : null}
        <Tooltip title={t('common.close')}>
          <IconButton
            size="small"
            aria-label={t('common.close')}
            onClick={onClose}
            data-testid="flow-panel-close"
          >
            <CloseIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      </Box>
      <Divider />
      <Stack spacing={2} sx={{ p: 2, overflowY: 'auto', flex: 1, minHeight: 0 }}>
        {issues.length ? (
          <Box
            component="ul"
            data-testid="flow-panel-issues"
            sx={{
              m: 0,
              pl: 2.5,
              color: issues.some((i) => i.severity === 'error') ? 'error.main' : 'warning.main',
            }}
          >
            {issues.map((i, k) => (
              <Typography component="li" variant="body2" key={k}>
                {issueText(i, nodeName(node), t)}
              </Typography>
            ))}
          </Box>
        ) : null}
        <TextField
          label={t('panel.label')}
          value={node.data.label ?? ''}
          placeholder={node.id}
          helperText={t('panel.labelHelp')}
          onChange={(e) => change({ ...node.data, label: e.target.value || undefined }, 'label')}
          slotProps={{ htmlInput: { maxLength: 100, 'data-field': 'label' }, inputLabel: { shrink: true } }}
        />
        {body}
      </Stack>
    </Box>
  );
}
