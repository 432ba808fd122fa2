import { z } from 'zod';
import { CHANNEL_KINDS } from './connections.js';
import { WEEKDAYS } from './companies.js';
import { Timestamp, type Wire } from './responses.js';

/**
 * Flows (docs/flows.md): a company's conversation drawn as a directed graph of nodes. This file is the one
 * description of the graph for the server (validation, runtime, stats), the web canvas (@xyflow/react) and
 * import/export files.
 *
 * A graph is `{ nodes, edges }`. A node is `{ id, type, position: { x, y }, data }`, `data` chosen by `type`.
 * An edge goes from one of its source node's EXITS (`sourceHandle`, see `nodeExits`) to a target node (its
 * entry). A node's exit with no edge ends the run there (the flow is completed).
 */

/** The largest PostgreSQL `integer`: ids beyond it name no row. */
const MAX_ID = 2_147_483_647;
const Id = z.coerce.number().int().positive().max(MAX_ID);

/** A graph holds at most this many nodes (docs/flows.md). */
export const MAX_FLOW_NODES = 500;
/** …and at most this many edges. */
export const MAX_FLOW_EDGES = 2000;
/** The runtime runs at most this many nodes for one inbound message (or one job) before handing over. */
export const MAX_FLOW_STEPS_PER_MESSAGE = 50;
/** GET /flows answers this many a page (hasMore from one extra row). */
export const FLOW_PAGE_SIZE = 20;

export const FLOW_NODE_TYPES = [
  'start',
  'message',
  'question',
  'condition',
  'set',
  'http',
  'ai_prompt',
  'typebot',
  'n8n',
  'wait',
  'transfer',
  'close',
  'randomizer',
  'consent',
] as const;
export type FlowNodeType = (typeof FLOW_NODE_TYPES)[number];

/**
 * The fixed exits of each node type (the sourceHandle of an edge). Some types add exits from their data:
 * question `option:<optionId>` (validation 'option'), condition `rule:<ruleId>` + `else` (mode 'switch'),
 * randomizer `branch:<branchId>`. `nodeExits(node)` gives a node's whole list; the editor draws one handle
 * per exit and the stats count entries per exit under these same names.
 */
export const FLOW_EXITS = {
  start: ['next'],
  message: ['next'],
  /** answered: a valid answer; invalid: still invalid after maxRetries; timeout: no answer in time. */
  question: ['answered', 'invalid', 'timeout'],
  /** Mode all/any. Mode 'switch' has `rule:<id>` per rule and `else` instead. */
  condition: ['true', 'false'],
  set: ['next'],
  /** success: a 2xx answer; error: anything else, a refused URL or the timeout. */
  http: ['success', 'error'],
  /** next: the prompt handed the conversation back (its hand-off line); error: the prompt failed. */
  ai_prompt: ['next', 'error'],
  /** next: the Typebot/n8n conversation ended (finish keyword, end of bot); error: the call failed. */
  typebot: ['next', 'error'],
  n8n: ['next', 'error'],
  wait: ['next'],
  /** Ends the run (to a queue or user), or ends it and starts another flow. */
  transfer: [],
  close: [],
  /** Per branch: `branch:<id>`. */
  randomizer: [],
  /** #35.2 accepted / refused: the answer, kept on the contact; invalid: no yes/no after maxRetries. */
  consent: ['accepted', 'refused', 'invalid', 'timeout'],
} as const satisfies Record<FlowNodeType, readonly string[]>;

export const questionOptionExit = (optionId: string) => `option:${optionId}`;
export const conditionRuleExit = (ruleId: string) => `rule:${ruleId}`;
export const CONDITION_ELSE_EXIT = 'else';
export const randomizerBranchExit = (branchId: string) => `branch:${branchId}`;

/** An id inside one graph (node, edge, option, rule, branch): letters, digits, _ and -. */
export const FlowLocalId = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and -');
/** A variable name: what `{{name}}` reads. Lower/upper letters, digits and _, starting with a letter. */
export const FlowVariableName = z
  .string()
  .trim()
  .min(1)
  .max(50)
  .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'a letter, then letters, digits or _');
/**
 * Text with variables: `{{name}}` (a flow variable or an answer by its variable name), `{{contact.name}}`,
 * `{{contact.number}}`, `{{contact.email}}`, `{{contact.<custom field name>}}`, `{{ticket.id}}`. WhatsApp
 * formatting (*bold*, _italic_, ~strike~, ```mono```) passes through untouched.
 */
const FlowText = (max: number) => z.string().max(max);
/** `{{ ... }}` occurrences of a text, trimmed: `['name', 'contact.email']`. */
export const templateVariables = (text: string): string[] =>
  [...text.matchAll(/\{\{\s*([^{}]+?)\s*\}\}/g)].map((m) => m[1]!);
/** Names the runtime fills by itself (not set by any node): contact.*, ticket.* and these. */
export const FLOW_BUILTIN_VARIABLES = ['name', 'firstName', 'number', 'protocol'] as const;

const Label = z.string().trim().max(100).optional();
const Time = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'time HH:MM');

/** An option shown as a button, a list row or a numbered line (where the channel has no buttons). */
export const FlowOption = z.object({
  id: FlowLocalId,
  label: z.string().trim().min(1).max(100),
  /** What is stored in the variable when chosen (the label when empty). */
  value: z.string().trim().max(200).optional(),
});
export type FlowOption = z.infer<typeof FlowOption>;
/** How options are shown: buttons (≤ 3), a list, or numbered text. Channels without them get numbered text. */
export const FLOW_OPTION_DISPLAYS = ['buttons', 'list', 'text'] as const;

/** start: where a run begins. Its triggers (docs/flows.md#triggers) are read from the PUBLISHED version. */
export const StartNodeData = z.object({
  label: Label,
  /** Keywords that start this flow on an inbound message with no run in progress (case/accents ignored). */
  keywords: z.array(z.string().trim().min(1).max(100)).max(50).default([]),
  keywordMatch: z.enum(['exact', 'contains']).default('exact'),
  /** Order of precedence among flows whose keywords match: lower first (then the lower flow id). */
  priority: z.coerce.number().int().min(0).max(1000).default(100),
  /** Start on a reply to a campaign message (optionally only these campaigns; empty = any). */
  campaignReply: z.boolean().default(false),
  campaignIds: z.array(Id).max(100).default([]),
  /** Start on a new conversation outside business hours (in place of the out-of-hours message). */
  outOfHours: z.boolean().default(false),
});

/** message: sends text (with variables), optionally a file from a file list, optionally options. */
export const MessageNodeData = z.object({
  label: Label,
  text: FlowText(4096).default(''),
  /** A file list (files module) and optionally one file of it; the whole list when fileId is absent. */
  fileListId: Id.nullish(),
  fileId: Id.nullish(),
  options: z.array(FlowOption).max(10).default([]),
  optionsDisplay: z.enum(FLOW_OPTION_DISPLAYS).default('buttons'),
});

export const QUESTION_VALIDATIONS = [
  'text',
  'number',
  'email',
  'phone',
  'cpf_cnpj',
  'cpf',
  'cnpj',
  'date',
  'option',
] as const;
export type QuestionValidation = (typeof QUESTION_VALIDATIONS)[number];

/**
 * question: sends `text`, waits for the customer's answer, validates it and stores it (normalised: digits of
 * a CPF, ISO date, the option's value) in `variable`. An invalid answer gets `retryMessage` up to
 * `maxRetries` times, then the `invalid` exit. No answer in `timeoutMinutes` → the `timeout` exit (a durable
 * job). With validation 'option', an answer matching option X leaves by `option:X` when that exit has an edge,
 * else by `answered`.
 */
export const QuestionNodeData = z.object({
  label: Label,
  text: FlowText(4096).min(1),
  variable: FlowVariableName,
  validation: z.enum(QUESTION_VALIDATIONS).default('text'),
  options: z.array(FlowOption).max(10).default([]),
  optionsDisplay: z.enum(FLOW_OPTION_DISPLAYS).default('buttons'),
  retryMessage: FlowText(1000).default(''),
  maxRetries: z.coerce.number().int().min(0).max(10).default(2),
  timeoutMinutes: z.coerce
    .number()
    .int()
    .min(1)
    .max(60 * 24 * 30)
    .default(60),
});

export const CONDITION_OPERATORS = [
  'eq',
  'neq',
  'contains',
  'not_contains',
  'starts_with',
  'gt',
  'gte',
  'lt',
  'lte',
  'empty',
  'not_empty',
] as const;
const Compare = { op: z.enum(CONDITION_OPERATORS), value: z.string().max(500).default('') };
export const FlowConditionRule = z.discriminatedUnion('kind', [
  z.object({ id: FlowLocalId, kind: z.literal('variable'), name: FlowVariableName, ...Compare }),
  /** name, number, email or a custom field's name. */
  z.object({
    id: FlowLocalId,
    kind: z.literal('contact_field'),
    field: z.string().trim().min(1).max(100),
    ...Compare,
  }),
  z.object({ id: FlowLocalId, kind: z.literal('tag'), op: z.enum(['has', 'not_has']), tagId: Id }),
  /** The company's hours, or a queue's (queueId) when the company schedules by queue. */
  z.object({
    id: FlowLocalId,
    kind: z.literal('business_hours'),
    op: z.enum(['open', 'closed']),
    queueId: Id.nullish(),
  }),
  /** The company's time zone: one of the weekdays and from ≤ now < to (to 00:00 = midnight). */
  z.object({
    id: FlowLocalId,
    kind: z.literal('weekday_time'),
    weekdays: z.array(z.enum(WEEKDAYS)).min(1).max(7),
    from: Time.default('00:00'),
    to: Time.default('00:00'),
  }),
  z.object({
    id: FlowLocalId,
    kind: z.literal('channel'),
    op: z.enum(['is', 'is_not']),
    channel: z.enum(CHANNEL_KINDS),
  }),
]);
export type FlowConditionRule = z.infer<typeof FlowConditionRule>;

/** condition: all/any → `true`/`false`; switch → the first matching rule's `rule:<id>`, else `else`. */
export const ConditionNodeData = z.object({
  label: Label,
  mode: z.enum(['all', 'any', 'switch']).default('all'),
  rules: z.array(FlowConditionRule).min(1).max(20),
});

export const FlowSetAction = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('variable'), name: FlowVariableName, value: FlowText(1000) }),
  /** name, email or a custom field's name (created when missing). */
  z.object({
    kind: z.literal('contact_field'),
    field: z.string().trim().min(1).max(100),
    value: FlowText(1000),
  }),
  z.object({ kind: z.literal('tag'), op: z.enum(['add', 'remove']), tagId: Id }),
]);
export type FlowSetAction = z.infer<typeof FlowSetAction>;
/** set: variables, contact fields and ticket tags, in order. */
export const SetNodeData = z.object({ label: Label, actions: z.array(FlowSetAction).min(1).max(20) });

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/**
 * http: calls a URL (through the outbound-URL guard) with variables in the URL, headers and body; fields of a
 * JSON answer (dot paths, e.g. `customer.queue`, `items.0.id`) go into variables. `success` on 2xx, `error`
 * otherwise (the status into `statusVariable` when set).
 */
export const HttpNodeData = z.object({
  label: Label,
  method: z.enum(HTTP_METHODS).default('GET'),
  url: z.string().trim().min(1).max(2000),
  headers: z
    .array(z.object({ name: z.string().trim().min(1).max(100), value: FlowText(2000) }))
    .max(20)
    .default([]),
  body: FlowText(20000).default(''),
  responseMap: z
    .array(z.object({ path: z.string().trim().min(1).max(200), variable: FlowVariableName }))
    .max(30)
    .default([]),
  statusVariable: FlowVariableName.optional(),
  timeoutSeconds: z.coerce.number().int().min(1).max(30).default(10),
});

/** ai_prompt: an existing prompt holds the conversation until its hand-off, then `next`. */
export const AiPromptNodeData = z.object({ label: Label, promptId: Id });
/** typebot / n8n: an existing queue integration of that type holds the conversation, then `next`. */
export const IntegrationNodeData = z.object({ label: Label, integrationId: Id });
/** wait: a delay (a durable job), then `next`. A message arriving meanwhile does not advance the run. */
export const WaitNodeData = z.object({
  label: Label,
  minutes: z.coerce
    .number()
    .int()
    .min(1)
    .max(60 * 24 * 30),
});
/**
 * transfer: ends the run. queue → pending in the queue; user → open with the user (in queueId when set);
 * flow → starts the other flow's published version (variables carried over). `note` (with variables) is
 * stored on the ticket as an internal note.
 */
export const TransferNodeData = z.object({
  label: Label,
  target: z.enum(['queue', 'user', 'flow']),
  queueId: Id.nullish(),
  userId: Id.nullish(),
  flowId: Id.nullish(),
  note: FlowText(2000).default(''),
});
/** close: optionally sends a last message, then closes the ticket. Ends the run. */
export const CloseNodeData = z.object({ label: Label, message: FlowText(4096).default('') });
/** randomizer: one branch at random, weighted by percent (the percents sum to 100). */
export const RandomizerNodeData = z.object({
  label: Label,
  branches: z
    .array(
      z.object({
        id: FlowLocalId,
        label: z.string().trim().max(50).default(''),
        percent: z.number().int().min(0).max(100),
      }),
    )
    .min(2)
    .max(10),
});

/**
 * #35.2 consent (docs/flows.md, docs/privacy.md): sends the company's consent text (or `text` when given),
 * waits for yes/no and records the answer and its time on the contact, exactly as the bot does. A contact
 * who already granted leaves by `accepted` at once, without being asked again.
 */
export const ConsentNodeData = z.object({
  label: Label,
  /** Empty: the company's consent text (Settings → Privacy). */
  text: FlowText(4096).default(''),
  retryMessage: FlowText(1000).default(''),
  maxRetries: z.coerce.number().int().min(0).max(10).default(2),
  timeoutMinutes: z.coerce
    .number()
    .int()
    .min(1)
    .max(60 * 24 * 30)
    .default(60),
});

const Position = z.object({ x: z.number().finite(), y: z.number().finite() });
const node = <T extends FlowNodeType, D extends z.ZodType>(type: T, data: D) =>
  z.object({ id: FlowLocalId, type: z.literal(type), position: Position, data });

export const FlowNode = z.discriminatedUnion('type', [
  node('start', StartNodeData),
  node('message', MessageNodeData),
  node('question', QuestionNodeData),
  node('condition', ConditionNodeData),
  node('set', SetNodeData),
  node('http', HttpNodeData),
  node('ai_prompt', AiPromptNodeData),
  node('typebot', IntegrationNodeData),
  node('n8n', IntegrationNodeData),
  node('wait', WaitNodeData),
  node('transfer', TransferNodeData),
  node('close', CloseNodeData),
  node('randomizer', RandomizerNodeData),
  node('consent', ConsentNodeData),
]);
export type FlowNode = z.infer<typeof FlowNode>;
export type FlowNodeOf<T extends FlowNodeType> = Extract<FlowNode, { type: T }>;

export const FlowEdge = z.object({
  id: FlowLocalId,
  source: FlowLocalId,
  /** The exit's name (FLOW_EXITS / nodeExits). */
  sourceHandle: z.string().trim().min(1).max(80),
  target: FlowLocalId,
  /** React Flow's target handle; nodes have one entry, so it is ignored. */
  targetHandle: z.string().max(80).nullish(),
});
export type FlowEdge = z.infer<typeof FlowEdge>;

/**
 * A whole graph. The schema checks shapes (and the node count); `validateFlowGraph` (server) checks the rest
 * and answers `FlowValidation`.
 */
export const FlowGraph = z.object({
  nodes: z.array(FlowNode).max(MAX_FLOW_NODES, `a flow has at most ${MAX_FLOW_NODES} nodes`),
  edges: z.array(FlowEdge).max(MAX_FLOW_EDGES),
  /** The canvas' pan and zoom when it was saved (the editor's; the server keeps it as is). */
  viewport: z.object({ x: z.number(), y: z.number(), zoom: z.number() }).optional(),
});
export type FlowGraph = z.infer<typeof FlowGraph>;

/** A new flow's graph: one start node. */
export const emptyFlowGraph = (): FlowGraph => ({
  nodes: [
    {
      id: 'start',
      type: 'start',
      position: { x: 0, y: 0 },
      data: {
        keywords: [],
        keywordMatch: 'exact',
        priority: 100,
        campaignReply: false,
        campaignIds: [],
        outOfHours: false,
      },
    },
  ],
  edges: [],
});

/** A node's exits, in the order the editor draws them. */
export function nodeExits(node: FlowNode): string[] {
  switch (node.type) {
    case 'question':
      return [
        ...FLOW_EXITS.question,
        ...(node.data.validation === 'option' ? node.data.options.map((o) => questionOptionExit(o.id)) : []),
      ];
    case 'condition':
      return node.data.mode === 'switch'
        ? [...node.data.rules.map((r) => conditionRuleExit(r.id)), CONDITION_ELSE_EXIT]
        : [...FLOW_EXITS.condition];
    case 'randomizer':
      return node.data.branches.map((b) => randomizerBranchExit(b.id));
    default:
      return [...FLOW_EXITS[node.type]];
  }
}
/** Exits whose missing edge is not reported as dangling (an option falls back to `answered`). */
export const isOptionalExit = (exit: string) => exit.startsWith('option:');

/** Flow validation issues (docs/flows.md#validation). Errors block saving a publish; warnings are shown. */
export const FLOW_ISSUE_CODES = [
  /** The schema failed at `path` (errors). */
  'schema',
  /** More than MAX_FLOW_NODES nodes (error). */
  'too_many_nodes',
  /** No start node, or more than one (error). */
  'start_missing',
  'start_duplicate',
  /** Two nodes or edges share an id (error). */
  'duplicate_id',
  /** An edge from/to a node that does not exist or from an exit the node does not have (error). */
  'edge_invalid',
  /** Two edges leave one exit (error). */
  'exit_duplicate',
  /** A cycle with no question or wait on it: it would loop without the customer (error). */
  'loop_without_wait',
  /** A queue/user/prompt/integration/file/tag/flow that is not this company's (error). */
  'foreign_reference',
  /** Randomizer percents do not sum to 100 (error). */
  'randomizer_sum',
  /** An option question without options, or a switch with duplicate rule ids (error). */
  'options_missing',
  /** Not reachable from the start node (warning). */
  'unreachable',
  /** An exit with no edge: the run ends there (warning). */
  'dangling_exit',
  /** `{{var}}` read before any node on some path sets it (warning). */
  'variable_before_set',
  /** A question whose timeout exit goes nowhere (warning). */
  'question_without_timeout',
  /**
   * An HTTP node's URL names a host the outbound-URL guard refuses (loopback, private or metadata addresses
   * without ALLOW_PRIVATE_URLS; a scheme other than http/https; credentials in the URL) (error).
   */
  'url_not_allowed',
] as const;
export type FlowIssueCode = (typeof FLOW_ISSUE_CODES)[number];

export const FlowIssue = z.object({
  /** The node concerned; null for the whole graph (too_many_nodes, start_missing). */
  nodeId: z.string().nullable(),
  edgeId: z.string().optional(),
  code: z.enum(FLOW_ISSUE_CODES),
  severity: z.enum(['error', 'warning']),
  /** An English sentence naming the node (its label or id) and what is wrong. */
  message: z.string(),
  exit: z.string().optional(),
  variable: z.string().optional(),
  /** For schema issues: where in the graph, e.g. `nodes.3.data.url`. */
  path: z.string().optional(),
  /** For foreign_reference: what kind of id and which. */
  reference: z.object({ kind: z.string(), id: z.number() }).optional(),
});
export type FlowIssue = z.infer<typeof FlowIssue>;
/** POST /flows/{id}/validate and the `issues` of a 400 ERR_FLOW_INVALID. */
export const FlowValidation = z
  .looseObject({ valid: z.boolean(), issues: z.array(FlowIssue) })
  .meta({ id: 'FlowValidation' });
export type FlowValidation = z.infer<typeof FlowValidation>;

export const FLOW_STATUSES = ['draft', 'published'] as const;
export type FlowStatus = (typeof FLOW_STATUSES)[number];

/** POST /flows. */
export const FlowInput = z.object({
  name: z.string().trim().min(2).max(100),
  description: z.string().trim().max(500).default(''),
  /** The draft; a single start node when absent. */
  graph: FlowGraph.optional(),
});
export type FlowInput = z.infer<typeof FlowInput>;
/** PUT /flows/{id}: only what is sent changes; a graph replaces the draft (errors → 400, nothing saved). */
export const FlowUpdate = z.object({
  name: FlowInput.shape.name.optional(),
  description: z.string().trim().max(500).optional(),
  graph: FlowGraph.optional(),
  /** false stops new runs of this flow (runs in progress finish). */
  active: z.boolean().optional(),
});
export type FlowUpdate = z.infer<typeof FlowUpdate>;
export const FlowListQuery = z.object({
  searchParam: z.string().trim().toLowerCase().max(100).optional().default(''),
  pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1),
});
export type FlowListQuery = z.infer<typeof FlowListQuery>;

/** A flow as listed (no graph). */
export const FlowSummary = z
  .looseObject({
    id: z.number(),
    companyId: z.number(),
    name: z.string(),
    description: z.string(),
    /** draft: never published; published: has a published version (the draft may differ: draftChanged). */
    status: z.enum(FLOW_STATUSES),
    active: z.boolean(),
    /** The version new runs start on; null until the first publish. */
    publishedVersion: z.number().nullable(),
    publishedAt: Timestamp.nullable(),
    /** The draft differs from the published version. */
    draftChanged: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'FlowSummary' });
export type FlowSummary = Wire<typeof FlowSummary>;
/**
 * `company-{id}-flow` (every signed-in user of the company): a flow was created, imported, changed,
 * published or deleted — the list screens and pickers stay live.
 */
export type FlowEvent =
  { action: 'create' | 'update'; flow: FlowSummary } | { action: 'delete'; flowId: number };
/** GET /flows/{id}, POST, PUT, publish: the flow with its draft graph. */
export const Flow = FlowSummary.extend({ graph: FlowGraph }).meta({ id: 'Flow' });
export type Flow = Wire<typeof Flow>;

/** An immutable published version (GET /flows/{id}/versions/{version}). */
export const FlowVersion = z
  .looseObject({
    flowId: z.number(),
    version: z.number(),
    graph: FlowGraph,
    publishedAt: Timestamp,
    publishedBy: z.number().nullable(),
  })
  .meta({ id: 'FlowVersion' });
export type FlowVersion = Wire<typeof FlowVersion>;

/** The kinds of company ids a graph can hold (import lists the missing ones per kind). */
export const FLOW_REFERENCE_KINDS = [
  'queue',
  'user',
  'prompt',
  'integration',
  'file',
  'fileList',
  'tag',
  'flow',
  'campaign',
] as const;
export type FlowReferenceKind = (typeof FLOW_REFERENCE_KINDS)[number];

/** GET /flows/{id}/export (a download) and the body of POST /flows/import. */
export const FlowExportFile = z.object({
  format: z.literal('recado-flow'),
  formatVersion: z.literal(1),
  name: FlowInput.shape.name,
  description: z.string().max(500).default(''),
  graph: FlowGraph,
});
export type FlowExportFile = z.infer<typeof FlowExportFile>;

/** old id → id in this company, per kind. */
export const FlowIdMapping = z
  .object(
    Object.fromEntries(FLOW_REFERENCE_KINDS.map((k) => [k, z.record(z.string(), Id).optional()])) as {
      [K in FlowReferenceKind]: z.ZodOptional<z.ZodRecord<z.ZodString, typeof Id>>;
    },
  )
  .partial();
export type FlowIdMapping = z.infer<typeof FlowIdMapping>;

/**
 * POST /flows/import: the exported file and, on the second try, the admin's mapping. When an id of the file
 * is not this company's and not mapped, the answer is 400 ERR_FLOW_IMPORT_UNMAPPED with `missing` (nothing
 * saved); the admin maps each and sends again.
 */
export const FlowImportInput = z.object({ file: FlowExportFile, mapping: FlowIdMapping.default({}) });
export type FlowImportInput = z.infer<typeof FlowImportInput>;
export const FlowMissingReference = z.object({
  kind: z.enum(FLOW_REFERENCE_KINDS),
  id: z.number(),
  nodeIds: z.array(z.string()),
});
export type FlowMissingReference = z.infer<typeof FlowMissingReference>;

/** POST /tickets/{id}/flow: sends the ticket's customer to a flow (its published version). */
export const TicketFlowInput = z.object({ flowId: Id });
export type TicketFlowInput = z.infer<typeof TicketFlowInput>;

export const FLOW_RUN_STATUSES = ['running', 'waiting', 'held', 'completed', 'failed', 'cancelled'] as const;
export type FlowRunStatus = (typeof FLOW_RUN_STATUSES)[number];
/** A run as answered (POST /tickets/{id}/flow, POST /flows/{id}/try). */
export const FlowRunView = z
  .looseObject({
    id: z.number(),
    flowId: z.number(),
    /** null when the run is a try of the draft. */
    version: z.number().nullable(),
    ticketId: z.number(),
    currentNodeId: z.string().nullable(),
    status: z.enum(FLOW_RUN_STATUSES),
    variables: z.record(z.string(), z.unknown()),
    isTry: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'FlowRun' });
export type FlowRunView = Wire<typeof FlowRunView>;

/**
 * POST /flows/{id}/try (docs/flows.md#try-it): starts the DRAFT (validated like a publish) in a simulator
 * conversation of this company (a simulator connection is created when there is none) and answers where
 * to talk to it: send the customer's messages with the simulator's API (POST /simulator/{whatsappId}/inbound
 * `{ from: contactNumber, body }`; the replies: GET /simulator/{whatsappId}/conversations/{contactNumber} and
 * the simulator's socket events), and follow the run on the socket: emit `joinFlowTry` with `{ flowId }` and
 * an ack (`{ ok }`; the server checks the flow is the socket's company's and the user an admin) and listen
 * to `flowTry` events (FlowTryEvent: the node to light up).
 */
export const FlowTryInput = z.object({
  /** The simulated customer's number; a new one per try when absent. */
  contactNumber: z
    .string()
    .trim()
    .regex(/^\d{8,15}$/)
    .optional(),
});
export type FlowTryInput = z.infer<typeof FlowTryInput>;
export const FlowTryAnswer = z
  .looseObject({ run: FlowRunView, whatsappId: z.number(), contactNumber: z.string(), ticketId: z.number() })
  .meta({ id: 'FlowTry' });
export type FlowTryAnswer = Wire<typeof FlowTryAnswer>;

/** Client → server: follow / stop following a flow's try runs (authorised per company and flow). */
export const FLOW_TRY_CLIENT_EVENTS = { join: 'joinFlowTry', leave: 'leaveFlowTry' } as const;
/** Server → client on the try room: the run moved (the node to light up), waits, ended. */
export const FLOW_TRY_EVENT = 'flowTry';
export const flowTryRoom = (companyId: number, flowId: number) => `company-${companyId}-flow-${flowId}-try`;
export interface FlowTryEvent {
  flowId: number;
  runId: number;
  ticketId: number;
  /** The node the run is on now (null once ended). */
  nodeId: string | null;
  /** The exit it left the previous node by, when it moved. */
  exit?: string;
  status: FlowRunStatus;
  variables: Record<string, unknown>;
  /** Set when the run failed: the node and why. */
  error?: string;
}
