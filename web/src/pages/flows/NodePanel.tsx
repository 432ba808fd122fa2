import type { ReactNode } from 'react';
import type { SxProps, Theme } from '@mui/material';
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

/** The add button in a list section's title row. */
const AddButton = ({ label, disabled, onClick }: { label: string; disabled: boolean; onClick(): void }) => (
  <Button size="small" startIcon={<AddIcon />} disabled={disabled} onClick={onClick}>
    {label}
  </Button>
);

/** One line of a list section: its fields side by side, the remove button last. */
const Row = ({ children }: { children: ReactNode }) => (
  <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
    {children}
  </Stack>
);

/** One framed item of a list section (a rule, an action): a head row (kind, remove) over its fields. */
const ItemCard = ({ head, children }: { head: ReactNode; children: ReactNode }) => (
  <Box sx={{ border: 1, borderColor: 'divider', borderRadius: 1, p: 1.25 }}>
    <Stack spacing={1.25}>
      <Row>{head}</Row>
      {children}
    </Stack>
  </Box>
);

/** A select of fixed values, each shown as `text(value)`. */
function ChoiceField<T extends string>({
  label,
  value,
  choices,
  text,
  onChange,
  field,
  helperText,
  sx,
}: {
  label: string;
  value: T;
  choices: readonly T[];
  text(value: T): string;
  onChange(value: T): void;
  field?: string;
  helperText?: string;
  sx?: SxProps<Theme>;
}) {
  return (
    <TextField
      select
      label={label}
      value={value}
      helperText={helperText}
      sx={sx}
      onChange={(e) => onChange(e.target.value as T)}
      slotProps={field ? { htmlInput: { 'data-field': field } } : undefined}
    >
      {choices.map((c) => (
        <MenuItem key={c} value={c}>
          {text(c)}
        </MenuItem>
      ))}
    </TextField>
  );
}

/** The operator of a rule or an action: `operators.{op}`. */
function OperatorField<T extends string>({
  value,
  ops,
  onChange,
}: {
  value: T;
  ops: readonly T[];
  onChange(op: T): void;
}) {
  const { t } = useFlowT();
  return (
    <ChoiceField
      label={t('panel.operator')}
      value={value}
      choices={ops}
      text={(op) => t(`operators.${op}`)}
      onChange={onChange}
    />
  );
}

/** A free text with suggestions (a variable's or a contact field's name). */
function SuggestField({
  label,
  value,
  options,
  helperText,
  onChange,
}: {
  label: string;
  value: string;
  options: string[];
  helperText?: string;
  onChange(value: string): void;
}) {
  return (
    <Autocomplete
      freeSolo
      options={options}
      value={value}
      onInputChange={(_e, v) => onChange(v)}
      renderInput={(params) => <TextField {...params} label={label} helperText={helperText} />}
    />
  );
}

const SwitchField = ({
  label,
  checked,
  onChange,
}: {
  label: string;
  checked: boolean;
  onChange(v: boolean): void;
}) => (
  <FormControlLabel
    control={<Switch checked={checked} onChange={(e) => onChange(e.target.checked)} />}
    label={label}
  />
);

/** List edits of a node's arrays (options, rules, headers...). */
const replaceAt = <T,>(list: T[], i: number, item: T) => list.map((x, k) => (k === i ? item : x));
const patchAt = <T,>(list: T[], i: number, patch: Partial<T>) =>
  list.map((x, k) => (k === i ? { ...x, ...patch } : x));
const removeAt = <T,>(list: T[], i: number) => list.filter((_, k) => k !== i);

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
    onChange(patchAt(options, i, patch), display, `${keyPrefix}.options.${i}.${key}`);
  return (
    <Section
      title={t('panel.options')}
      action={
        <AddButton
          label={t('panel.addOption')}
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
        />
      }
    >
      {options.map((o, i) => (
        <Row key={o.id}>
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
            onClick={() => onChange(removeAt(options, i), display, `${keyPrefix}.options.remove`)}
          />
        </Row>
      ))}
      {options.length ? (
        <ChoiceField
          label={t('panel.optionsDisplay')}
          value={display}
          choices={FLOW_OPTION_DISPLAYS}
          text={(d) => t(`optionDisplays.${d}`)}
          onChange={(v) => onChange(options, v, `${keyPrefix}.display`)}
          helperText={t('panel.optionsDisplayHelp')}
        />
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
      <ChoiceField
        label={t('panel.keywordMatch')}
        value={d.keywordMatch}
        choices={['exact', 'contains'] as const}
        text={(m) => t(m === 'exact' ? 'panel.keywordExact' : 'panel.keywordContains')}
        onChange={(keywordMatch) => onChange({ ...d, keywordMatch }, 'keywordMatch')}
      />
      <NumberField
        label={t('panel.priority')}
        value={d.priority}
        min={0}
        max={1000}
        field="priority"
        helperText={t('panel.priorityHelp')}
        onChange={(v) => onChange({ ...d, priority: v }, 'priority')}
      />
      <SwitchField
        label={t('panel.outOfHours')}
        checked={d.outOfHours}
        onChange={(outOfHours) => onChange({ ...d, outOfHours }, 'outOfHours')}
      />
      <SwitchField
        label={t('panel.campaignReply')}
        checked={d.campaignReply}
        onChange={(campaignReply) => onChange({ ...d, campaignReply }, 'campaignReply')}
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
      <ChoiceField
        label={t('panel.validation')}
        value={d.validation}
        choices={QUESTION_VALIDATIONS}
        text={(v) => t(`validations.${v}`)}
        onChange={(validation) => onChange({ ...d, validation }, 'validation')}
        field="validation"
      />
      {d.validation === 'option' || d.options.length ? (
        <OptionsEditor
          options={d.options}
          display={d.optionsDisplay}
          keyPrefix="question"
          onChange={(options, optionsDisplay, key) => onChange({ ...d, options, optionsDisplay }, key)}
        />
      ) : null}
      <RetryFields data={d} variables={variables} onChange={(x, key) => onChange({ ...d, ...x }, key)} />
    </>
  );
}

/** A question's and the consent's retry message, number of retries and timeout (the same three fields). */
function RetryFields({
  data,
  variables,
  onChange,
}: {
  data: { retryMessage: string; maxRetries: number; timeoutMinutes: number };
  variables: string[];
  onChange: (
    change: Partial<{ retryMessage: string; maxRetries: number; timeoutMinutes: number }>,
    key: string,
  ) => void;
}) {
  const { t } = useFlowT();
  return (
    <>
      <VariableField
        label={t('panel.retryMessage')}
        value={data.retryMessage}
        multiline
        field="retryMessage"
        variables={variables}
        helperText={t('panel.retryHelp')}
        onChange={(retryMessage) => onChange({ retryMessage }, 'retryMessage')}
      />
      <Stack direction="row" spacing={1}>
        <NumberField
          label={t('panel.maxRetries')}
          value={data.maxRetries}
          min={0}
          max={10}
          field="maxRetries"
          onChange={(maxRetries) => onChange({ maxRetries }, 'maxRetries')}
        />
        <NumberField
          label={t('panel.timeoutMinutes')}
          value={data.timeoutMinutes}
          min={1}
          max={43200}
          field="timeoutMinutes"
          onChange={(timeoutMinutes) => onChange({ timeoutMinutes }, 'timeoutMinutes')}
        />
      </Stack>
    </>
  );
}

/** #35.2 The consent block: its own text or the company's, then yes/no kept on the contact. */
function ConsentFields({
  node,
  onChange,
  variables,
}: {
  node: FlowNodeOf<'consent'>;
  onChange: Change<FlowNodeOf<'consent'>>;
  variables: string[];
}) {
  const { t } = useFlowT();
  const d = node.data;
  return (
    <>
      <Typography variant="body2" color="text.secondary">
        {t('panel.consentHelp')}
      </Typography>
      <VariableField
        label={t('panel.consentText')}
        value={d.text}
        multiline
        minRows={2}
        field="text"
        variables={variables}
        helperText={t('panel.consentTextHelp')}
        onChange={(text) => onChange({ ...d, text }, 'text')}
      />
      <RetryFields data={d} variables={variables} onChange={(x, key) => onChange({ ...d, ...x }, key)} />
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
      <OperatorField
        value={r.op}
        ops={CONDITION_OPERATORS}
        onChange={(op) => onChange({ ...r, op }, `${r.id}.op`)}
      />
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
          <SuggestField
            label={t('panel.variable')}
            options={variables.filter((v) => !v.includes('.'))}
            value={rule.name}
            onChange={(name) => onChange({ ...rule, name: name.trim() }, `${rule.id}.name`)}
          />
          {compare(rule)}
        </>
      );
    case 'contact_field':
      return (
        <>
          <SuggestField
            label={t('panel.contactField')}
            helperText={t('panel.contactFieldHelp')}
            options={['name', 'number', 'email']}
            value={rule.field}
            onChange={(field) => onChange({ ...rule, field }, `${rule.id}.field`)}
          />
          {compare(rule)}
        </>
      );
    case 'tag':
      return (
        <>
          <OperatorField
            value={rule.op}
            ops={['has', 'not_has'] as const}
            onChange={(op) => onChange({ ...rule, op }, `${rule.id}.op`)}
          />
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
          <OperatorField
            value={rule.op}
            ops={['open', 'closed'] as const}
            onChange={(op) => onChange({ ...rule, op }, `${rule.id}.op`)}
          />
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
          <OperatorField
            value={rule.op}
            ops={['is', 'is_not'] as const}
            onChange={(op) => onChange({ ...rule, op }, `${rule.id}.op`)}
          />
          <ChoiceField
            label={t('panel.channel')}
            value={rule.channel}
            choices={CHANNEL_KINDS}
            text={(c) => t(`channels.${c}`)}
            onChange={(channel) => onChange({ ...rule, channel }, `${rule.id}.channel`)}
          />
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
    onChange({ ...d, rules: replaceAt(d.rules, i, rule) }, `rule.${key}`);
  return (
    <>
      <ChoiceField
        label={t('panel.mode')}
        value={d.mode}
        choices={['all', 'any', 'switch'] as const}
        text={(m) => t(`modes.${m}`)}
        onChange={(mode) => onChange({ ...d, mode }, 'mode')}
        helperText={t(`panel.modeHelp.${d.mode}`)}
        field="mode"
      />
      <Section
        title={t('panel.rules')}
        action={
          <AddButton
            label={t('panel.addRule')}
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
          />
        }
      >
        {d.rules.map((rule, i) => (
          <ItemCard
            key={rule.id}
            head={
              <>
                <Typography variant="caption" color="text.secondary" sx={{ whiteSpace: 'nowrap' }}>
                  {t('exits.rule', { n: i + 1 })}
                </Typography>
                <ChoiceField
                  label={t('panel.ruleKind')}
                  value={rule.kind}
                  choices={RULE_KINDS}
                  text={(k) => t(`ruleKinds.${k}`)}
                  onChange={(kind) => setRule(i, newRule(kind, rule.id), `${rule.id}.kind`)}
                />
                {d.rules.length > 1 ? (
                  <RemoveButton
                    label={t('panel.remove')}
                    onClick={() => onChange({ ...d, rules: removeAt(d.rules, i) }, 'rules.remove')}
                  />
                ) : null}
              </>
            }
          >
            <RuleFields
              rule={rule}
              pickers={pickers}
              variables={variables}
              onChange={(r, key) => setRule(i, r, key)}
            />
          </ItemCard>
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
    onChange({ ...d, actions: replaceAt(d.actions, i, a) }, `action.${i}.${key}`);
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
        <AddButton
          label={t('panel.addAction')}
          disabled={d.actions.length >= 20}
          onClick={() => onChange({ ...d, actions: [...d.actions, blank('variable')] }, 'actions.add')}
        />
      }
    >
      {d.actions.map((a, i) => (
        <ItemCard
          key={i}
          head={
            <>
              <ChoiceField
                label={t('panel.actionKind')}
                value={a.kind}
                choices={['variable', 'contact_field', 'tag'] as const}
                text={(k) => t(`actionKinds.${k}`)}
                onChange={(kind) => setAction(i, blank(kind), 'kind')}
              />
              {d.actions.length > 1 ? (
                <RemoveButton
                  label={t('panel.remove')}
                  onClick={() => onChange({ ...d, actions: removeAt(d.actions, i) }, 'actions.remove')}
                />
              ) : null}
            </>
          }
        >
          {a.kind === 'tag' ? (
            <>
              <OperatorField
                value={a.op}
                ops={['add', 'remove'] as const}
                onChange={(op) => setAction(i, { ...a, op }, 'op')}
              />
              <PickField
                label={t('panel.tag')}
                value={a.tagId}
                options={pickers.lists.tag}
                field={`set-tag-${i}`}
                onChange={(v) => setAction(i, { ...a, tagId: v ?? 0 }, 'tag')}
              />
            </>
          ) : (
            <>
              {a.kind === 'variable' ? (
                <TextField
                  label={t('panel.variable')}
                  value={a.name}
                  error={!/^[A-Za-z][A-Za-z0-9_]*$/.test(a.name)}
                  onChange={(e) => setAction(i, { ...a, name: e.target.value.trim() }, 'name')}
                  slotProps={{ htmlInput: { maxLength: 50 } }}
                />
              ) : (
                <SuggestField
                  label={t('panel.contactField')}
                  helperText={t('panel.contactFieldSetHelp')}
                  options={['name', 'email']}
                  value={a.field}
                  onChange={(field) => setAction(i, { ...a, field }, 'field')}
                />
              )}
              <VariableField
                label={t('panel.value')}
                value={a.value}
                field={`set-value-${i}`}
                variables={variables}
                onChange={(value) => setAction(i, { ...a, value }, 'value')}
              />
            </>
          )}
        </ItemCard>
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
        <ChoiceField
          label={t('panel.method')}
          value={d.method}
          choices={HTTP_METHODS}
          text={(m) => m}
          sx={{ maxWidth: 120 }}
          onChange={(method) => onChange({ ...d, method }, 'method')}
        />
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
          <AddButton
            label={t('panel.add')}
            disabled={d.headers.length >= 20}
            onClick={() =>
              onChange({ ...d, headers: [...d.headers, { name: '', value: '' }] }, 'headers.add')
            }
          />
        }
      >
        {d.headers.map((h, i) => (
          <Row key={i}>
            <TextField
              label={t('panel.headerName')}
              value={h.name}
              error={!h.name.trim()}
              onChange={(e) =>
                onChange(
                  { ...d, headers: patchAt(d.headers, i, { name: e.target.value }) },
                  `headers.${i}.name`,
                )
              }
            />
            <TextField
              label={t('panel.value')}
              value={h.value}
              onChange={(e) =>
                onChange(
                  { ...d, headers: patchAt(d.headers, i, { value: e.target.value }) },
                  `headers.${i}.value`,
                )
              }
            />
            <RemoveButton
              label={t('panel.remove')}
              onClick={() => onChange({ ...d, headers: removeAt(d.headers, i) }, 'headers.remove')}
            />
          </Row>
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
          <AddButton
            label={t('panel.add')}
            disabled={d.responseMap.length >= 30}
            onClick={() =>
              onChange(
                { ...d, responseMap: [...d.responseMap, { path: '', variable: '' }] },
                'responseMap.add',
              )
            }
          />
        }
      >
        <Typography variant="caption" color="text.secondary">
          {t('panel.responseMapHelp')}
        </Typography>
        {d.responseMap.map((m, i) => (
          <Row key={i}>
            <TextField
              label={t('panel.jsonPath')}
              value={m.path}
              placeholder="customer.queue"
              error={!m.path.trim()}
              onChange={(e) =>
                onChange(
                  { ...d, responseMap: patchAt(d.responseMap, i, { path: e.target.value }) },
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
                  { ...d, responseMap: patchAt(d.responseMap, i, { variable: e.target.value.trim() }) },
                  `responseMap.${i}.variable`,
                )
              }
              slotProps={{ htmlInput: { 'data-field': `response-variable-${i}` } }}
            />
            <RemoveButton
              label={t('panel.remove')}
              onClick={() =>
                onChange({ ...d, responseMap: removeAt(d.responseMap, i) }, 'responseMap.remove')
              }
            />
          </Row>
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
      <ChoiceField
        label={t('panel.transferTo')}
        value={d.target}
        choices={['queue', 'user', 'flow'] as const}
        text={(x) => t(`targets.${x}`)}
        onChange={(target) => onChange({ ...d, target }, 'target')}
        field="target"
      />
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
        <AddButton
          label={t('panel.add')}
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
        />
      }
    >
      {d.branches.map((b, i) => (
        <Row key={b.id}>
          <TextField
            label={t('panel.optionLabel')}
            value={b.label}
            onChange={(e) =>
              onChange(
                { ...d, branches: patchAt(d.branches, i, { label: e.target.value }) },
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
              onChange({ ...d, branches: patchAt(d.branches, i, { percent }) }, `branches.${i}.percent`)
            }
          />
          {d.branches.length > 2 ? (
            <RemoveButton
              label={t('panel.remove')}
              onClick={() => onChange({ ...d, branches: removeAt(d.branches, i) }, 'branches.remove')}
            />
          ) : null}
        </Row>
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
      case 'consent':
        return <ConsentFields node={node} onChange={change} variables={variables} />;
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
