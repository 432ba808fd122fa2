import {
  FLOW_BUILTIN_VARIABLES,
  FlowGraph,
  emptyFlowGraph,
  nodeExits,
  type FlowEdge,
  type Flow,
  type FlowNode,
  type FlowNodeType,
} from '@recado/contracts';
import { autoLayout } from './auto-layout.js';

/**
 * The drawing the editor edits, in the contract's own shape (contracts/src/flows.ts): what is saved is what
 * is drawn, with no second model to keep in step. React Flow's nodes and edges are made from it for each
 * render (FlowCanvas); selection and measured sizes live beside it, never in the undo history.
 *
 * Every function here is pure: it answers a new document and leaves the one given as it was.
 */
export interface FlowDoc {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

/** The one entry handle of a node (the start node has none). */
export const ENTRY_HANDLE = 'in';
/** Where a node without a measured size is assumed to be this big (layout, paste, palette clicks). */
export const DEFAULT_NODE_SIZE = { width: 240, height: 110 };

/**
 * The drawing of a graph as the server or a file gives it: the contract's defaults filled in (a node saved
 * before a field existed gets the field's default); a graph the schema refuses is drawn as it is, and the
 * server's validation names what is wrong.
 */
export const docFromGraph = (graph: FlowGraph | Flow['graph'] | null | undefined): FlowDoc => {
  if (!graph || !graph.nodes.length) return { nodes: emptyFlowGraph().nodes, edges: [] };
  const parsed = FlowGraph.safeParse(graph);
  const g = parsed.success ? parsed.data : (graph as FlowGraph);
  return { nodes: g.nodes, edges: g.edges };
};

export const graphFromDoc = (doc: FlowDoc, viewport?: FlowGraph['viewport']): FlowGraph => ({
  nodes: doc.nodes,
  edges: doc.edges,
  ...(viewport ? { viewport } : {}),
});

/** The texts new nodes start with, in the interface's language (FlowEditorPage passes them). */
export interface NodeTexts {
  message: string;
  question: string;
  retry: string;
  optionA: string;
  optionB: string;
}
const NO_TEXTS: NodeTexts = { message: '', question: '', retry: '', optionA: 'A', optionB: 'B' };

/** `base`, `base2`, `base3`...: the first not in `taken`. */
export function freeName(base: string, taken: Iterable<string>): string {
  const set = new Set(taken);
  if (!set.has(base)) return base;
  for (let i = 2; ; i++) if (!set.has(`${base}${i}`)) return `${base}${i}`;
}

/** Variables the graph sets (questions, set nodes, HTTP answers), in drawing order, without repeats. */
export function definedVariables(doc: FlowDoc): string[] {
  const names: string[] = [];
  for (const n of doc.nodes) {
    if (n.type === 'question') names.push(n.data.variable);
    if (n.type === 'set') for (const a of n.data.actions) if (a.kind === 'variable') names.push(a.name);
    if (n.type === 'http') {
      for (const m of n.data.responseMap) names.push(m.variable);
      if (n.data.statusVariable) names.push(n.data.statusVariable);
    }
  }
  return [...new Set(names.filter(Boolean))];
}

/** What `{{ }}` can read anywhere: the graph's variables, the built-in ones, the contact's and the ticket's. */
export const variableSuggestions = (doc: FlowDoc): string[] => [
  ...definedVariables(doc),
  ...FLOW_BUILTIN_VARIABLES,
  'contact.name',
  'contact.number',
  'contact.email',
  'ticket.id',
];

/** A new node of `type` at `position`, with an id unused in `doc` and data the schema accepts where it can. */
export function newNode(
  type: FlowNodeType,
  position: { x: number; y: number },
  doc: FlowDoc,
  texts: NodeTexts = NO_TEXTS,
  refs: { promptId?: number; typebotId?: number; n8nId?: number } = {},
): FlowNode {
  const id = nextId(type, doc);
  const base = { id, position };
  switch (type) {
    case 'start':
      return {
        ...base,
        type,
        data: emptyFlowGraph().nodes[0]!.data as Extract<FlowNode, { type: 'start' }>['data'],
      };
    case 'message':
      return { ...base, type, data: { text: texts.message, options: [], optionsDisplay: 'buttons' } };
    case 'question':
      return {
        ...base,
        type,
        data: {
          text: texts.question,
          variable: freeName('answer', definedVariables(doc)),
          validation: 'text',
          options: [],
          optionsDisplay: 'buttons',
          retryMessage: texts.retry,
          maxRetries: 2,
          timeoutMinutes: 60,
        },
      };
    case 'condition':
      return {
        ...base,
        type,
        data: { mode: 'all', rules: [{ id: 'r1', kind: 'business_hours', op: 'open', queueId: null }] },
      };
    case 'set':
      return {
        ...base,
        type,
        data: { actions: [{ kind: 'variable', name: freeName('var', definedVariables(doc)), value: '' }] },
      };
    case 'http':
      return {
        ...base,
        type,
        data: { method: 'GET', url: 'https://', headers: [], body: '', responseMap: [], timeoutSeconds: 10 },
      };
    case 'ai_prompt':
      return { ...base, type, data: { promptId: refs.promptId ?? 0 } };
    case 'typebot':
      return { ...base, type, data: { integrationId: refs.typebotId ?? 0 } };
    case 'n8n':
      return { ...base, type, data: { integrationId: refs.n8nId ?? 0 } };
    case 'wait':
      return { ...base, type, data: { minutes: 5 } };
    case 'consent':
      // Empty text: the company's consent text (Settings → Privacy) is asked.
      return { ...base, type, data: { text: '', retryMessage: '', maxRetries: 2, timeoutMinutes: 60 } };
    case 'transfer':
      return {
        ...base,
        type,
        data: { target: 'queue', queueId: null, userId: null, flowId: null, note: '' },
      };
    case 'close':
      return { ...base, type, data: { message: '' } };
    case 'randomizer':
      return {
        ...base,
        type,
        data: {
          branches: [
            { id: 'a', label: texts.optionA, percent: 50 },
            { id: 'b', label: texts.optionB, percent: 50 },
          ],
        },
      };
  }
}

/** `message-3`: the type (with - for _) and the first number no node of the document has. */
export function nextId(type: FlowNodeType, doc: FlowDoc, taken: Set<string> = new Set()): string {
  const prefix = type.replace('_', '-');
  const ids = new Set([...doc.nodes.map((n) => n.id), ...taken]);
  for (let i = 1; ; i++) if (!ids.has(`${prefix}-${i}`)) return `${prefix}-${i}`;
}

/** An edge's id from its exit: one edge per exit, so `e-{source}-{exit}` is unique (`:` is not allowed). */
export const edgeId = (source: string, exit: string) =>
  `e-${source}-${exit}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 64);

export const addNode = (doc: FlowDoc, node: FlowNode): FlowDoc => ({ ...doc, nodes: [...doc.nodes, node] });

/** Why a connection is refused, or null when it may be drawn. */
export function connectionProblem(
  doc: FlowDoc,
  c: { source: string | null; sourceHandle?: string | null; target: string | null },
): 'missing' | 'start_target' | 'no_exit' | null {
  const source = doc.nodes.find((n) => n.id === c.source);
  const target = doc.nodes.find((n) => n.id === c.target);
  if (!source || !target || !c.sourceHandle) return 'missing';
  if (target.type === 'start') return 'start_target';
  if (!nodeExits(source).includes(c.sourceHandle)) return 'no_exit';
  return null;
}

/** Draws an edge from an exit to a node's entry; an exit holds one edge, so a new one replaces the old. */
export function connect(
  doc: FlowDoc,
  c: { source: string | null; sourceHandle?: string | null; target: string | null },
): FlowDoc {
  if (connectionProblem(doc, c)) return doc;
  const exit = c.sourceHandle!;
  const existing = doc.edges.find((e) => e.source === c.source && e.sourceHandle === exit);
  if (existing?.target === c.target) return doc;
  const others = doc.edges.filter((e) => e !== existing);
  let id = edgeId(c.source!, exit);
  const ids = new Set(others.map((e) => e.id));
  for (let i = 2; ids.has(id); i++) id = `${edgeId(c.source!, exit).slice(0, 60)}-${i}`;
  return { ...doc, edges: [...others, { id, source: c.source!, sourceHandle: exit, target: c.target! }] };
}

/**
 * Removes nodes (with every edge touching them) and edges. The start node stays: a flow has exactly one.
 */
export function removeElements(
  doc: FlowDoc,
  nodeIds: Iterable<string>,
  edgeIds: Iterable<string> = [],
): FlowDoc {
  const start = new Set(doc.nodes.filter((n) => n.type === 'start').map((n) => n.id));
  const gone = new Set([...nodeIds].filter((id) => !start.has(id)));
  const goneEdges = new Set(edgeIds);
  if (!gone.size && !doc.edges.some((e) => goneEdges.has(e.id))) return doc;
  return {
    nodes: doc.nodes.filter((n) => !gone.has(n.id)),
    edges: doc.edges.filter((e) => !goneEdges.has(e.id) && !gone.has(e.source) && !gone.has(e.target)),
  };
}

/** Edges whose exit the node no longer has (an option or a branch removed) go with it. */
const pruneEdges = (nodes: FlowNode[], edges: FlowEdge[]) => {
  const exits = new Map(nodes.map((n) => [n.id, new Set(nodeExits(n))]));
  return edges.filter((e) => exits.get(e.source)?.has(e.sourceHandle) && exits.has(e.target));
};

/** Replaces a node's data (the side panel); edges from exits it no longer has are removed. */
export function updateNode(doc: FlowDoc, id: string, data: FlowNode['data']): FlowDoc {
  let changed = false;
  const nodes = doc.nodes.map((n) => {
    if (n.id !== id || n.data === data) return n;
    changed = true;
    return { ...n, data } as FlowNode;
  });
  if (!changed) return doc;
  return { nodes, edges: pruneEdges(nodes, doc.edges) };
}

/** Moves nodes; positions of unknown ids are ignored. */
export function moveNodes(doc: FlowDoc, positions: Map<string, { x: number; y: number }>): FlowDoc {
  let changed = false;
  const nodes = doc.nodes.map((n) => {
    const p = positions.get(n.id);
    if (!p || (p.x === n.position.x && p.y === n.position.y)) return n;
    changed = true;
    return { ...n, position: { x: p.x, y: p.y } };
  });
  return changed ? { ...doc, nodes } : doc;
}

/** What Ctrl+C keeps: the chosen nodes (never the start node) and the edges between them. */
export interface Clipboard {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

export function copyNodes(doc: FlowDoc, ids: Iterable<string>): Clipboard | null {
  const chosen = new Set(ids);
  const nodes = doc.nodes.filter((n) => chosen.has(n.id) && n.type !== 'start');
  if (!nodes.length) return null;
  const kept = new Set(nodes.map((n) => n.id));
  return { nodes, edges: doc.edges.filter((e) => kept.has(e.source) && kept.has(e.target)) };
}

/**
 * Ctrl+V: the clipboard's nodes with new ids, moved by `offset`, their inner edges following the new ids.
 * Answers the document and the new nodes' ids (they become the selection).
 */
export function paste(
  doc: FlowDoc,
  clip: Clipboard,
  offset: { x: number; y: number },
): { doc: FlowDoc; ids: string[] } {
  const taken = new Set<string>();
  const rename = new Map<string, string>();
  for (const n of clip.nodes) {
    const id = nextId(n.type, doc, taken);
    taken.add(id);
    rename.set(n.id, id);
  }
  const nodes = clip.nodes.map(
    (n) =>
      ({
        ...n,
        id: rename.get(n.id)!,
        position: { x: n.position.x + offset.x, y: n.position.y + offset.y },
      }) as FlowNode,
  );
  let next: FlowDoc = { ...doc, nodes: [...doc.nodes, ...nodes] };
  for (const e of clip.edges)
    next = connect(next, {
      source: rename.get(e.source)!,
      sourceHandle: e.sourceHandle,
      target: rename.get(e.target)!,
    });
  return { doc: next, ids: nodes.map((n) => n.id) };
}

/** Auto-layout of the whole drawing (auto-layout.ts), with each node's measured size when known. */
export function layoutDoc(doc: FlowDoc, sizes: Map<string, { width: number; height: number }>): FlowDoc {
  // Edges in exit order, so a node's children keep the order of its handles top to bottom.
  const exitRank = new Map(doc.nodes.map((n) => [n.id, nodeExits(n)]));
  const edges = [...doc.edges].sort(
    (a, b) =>
      (exitRank.get(a.source)?.indexOf(a.sourceHandle) ?? 0) -
      (exitRank.get(b.source)?.indexOf(b.sourceHandle) ?? 0),
  );
  const positions = autoLayout(
    doc.nodes.map((n) => ({ id: n.id, root: n.type === 'start', ...(sizes.get(n.id) ?? DEFAULT_NODE_SIZE) })),
    edges,
  );
  return moveNodes(doc, positions);
}

/** A node's name on the canvas and in messages: its label, else its id. */
export const nodeName = (n: FlowNode) => n.data.label?.trim() || n.id;
