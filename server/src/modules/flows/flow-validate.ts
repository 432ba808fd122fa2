import {
  FLOW_BUILTIN_VARIABLES,
  FlowGraph,
  MAX_FLOW_NODES,
  isOptionalExit,
  nodeExits,
  templateVariables,
  type FlowIssue,
  type FlowNode,
  type FlowReferenceKind,
} from '@recado/contracts';

/**
 * The graph's own rules (docs/flows.md#validation), without the database: structure, loops, reachability,
 * variables. Company references (queues, users, …) are checked by the service (`referencesOf` lists them).
 */

const nameOf = (n: FlowNode) => (n.data.label ? `"${n.data.label}" (${n.id})` : n.id);

/** Nodes that stop a step: the customer must write (question, wait) or another system holds the chat. */
const STOPS = new Set(['question', 'wait', 'ai_prompt', 'typebot', 'n8n', 'consent']);

/** Schema failure of an unknown body → issues naming the node (nodes.<index> → that node's id when known). */
export function schemaIssues(raw: unknown): FlowIssue[] | null {
  const parsed = FlowGraph.safeParse(raw);
  if (parsed.success) return null;
  const nodes = (raw as { nodes?: unknown[] } | null)?.nodes;
  return parsed.error.issues.map((i) => {
    const path = i.path.map(String).join('.');
    let nodeId: string | null = null;
    if (i.path[0] === 'nodes' && typeof i.path[1] === 'number' && Array.isArray(nodes)) {
      const id = (nodes[i.path[1]] as { id?: unknown } | undefined)?.id;
      nodeId = typeof id === 'string' ? id : `#${i.path[1]}`;
    }
    if (i.path[0] === 'nodes' && i.code === 'too_big')
      return {
        nodeId: null,
        code: 'too_many_nodes' as const,
        severity: 'error' as const,
        message: `A flow has at most ${MAX_FLOW_NODES} nodes`,
        path,
      };
    return {
      nodeId,
      code: 'schema' as const,
      severity: 'error' as const,
      message: `${nodeId ? `Node ${nodeId}: ` : ''}${path}: ${i.message}`,
      path,
    };
  });
}

/** Every company id a graph names, with the nodes that name it. */
export function referencesOf(graph: FlowGraph): { kind: FlowReferenceKind; id: number; nodeId: string }[] {
  const out: { kind: FlowReferenceKind; id: number; nodeId: string }[] = [];
  const add = (kind: FlowReferenceKind, id: number | null | undefined, nodeId: string) => {
    if (typeof id === 'number') out.push({ kind, id, nodeId });
  };
  for (const n of graph.nodes) {
    switch (n.type) {
      case 'start':
        n.data.campaignIds.forEach((id) => add('campaign', id, n.id));
        break;
      case 'message':
        add('fileList', n.data.fileListId, n.id);
        add('file', n.data.fileId, n.id);
        break;
      case 'condition':
        for (const r of n.data.rules) {
          if (r.kind === 'tag') add('tag', r.tagId, n.id);
          if (r.kind === 'business_hours') add('queue', r.queueId, n.id);
        }
        break;
      case 'set':
        for (const a of n.data.actions) if (a.kind === 'tag') add('tag', a.tagId, n.id);
        break;
      case 'ai_prompt':
        add('prompt', n.data.promptId, n.id);
        break;
      case 'typebot':
      case 'n8n':
        add('integration', n.data.integrationId, n.id);
        break;
      case 'transfer':
        add('queue', n.data.queueId, n.id);
        add('user', n.data.userId, n.id);
        add('flow', n.data.flowId, n.id);
        break;
      default:
        break;
    }
  }
  return out;
}

/** Variables a node sets. */
function setsOf(n: FlowNode): string[] {
  switch (n.type) {
    case 'question':
      return [n.data.variable];
    case 'consent':
      return ['consent'];
    case 'set':
      return n.data.actions.flatMap((a) => (a.kind === 'variable' ? [a.name] : []));
    case 'http':
      return [
        ...n.data.responseMap.map((m) => m.variable),
        ...(n.data.statusVariable ? [n.data.statusVariable] : []),
      ];
    default:
      return [];
  }
}

/** Variables a node reads (its texts' {{…}} and its rules), without contact./ticket./built-ins. */
function readsOf(n: FlowNode): string[] {
  const texts: string[] = [];
  switch (n.type) {
    case 'message':
      texts.push(n.data.text);
      break;
    case 'question':
    case 'consent':
      texts.push(n.data.text, n.data.retryMessage);
      break;
    case 'set':
      for (const a of n.data.actions) if (a.kind !== 'tag') texts.push(a.value);
      break;
    case 'http':
      texts.push(n.data.url, n.data.body, ...n.data.headers.map((h) => h.value));
      break;
    case 'transfer':
      texts.push(n.data.note);
      break;
    case 'close':
      texts.push(n.data.message);
      break;
    default:
      break;
  }
  const names = texts.flatMap(templateVariables);
  if (n.type === 'condition') for (const r of n.data.rules) if (r.kind === 'variable') names.push(r.name);
  return names.filter(
    (v) =>
      !v.startsWith('contact.') &&
      !v.startsWith('ticket.') &&
      !(FLOW_BUILTIN_VARIABLES as readonly string[]).includes(v),
  );
}

/** Structural validation of a graph that passed the schema. */
export function validateStructure(graph: FlowGraph): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const err = (i: Omit<FlowIssue, 'severity'>) => issues.push({ ...i, severity: 'error' });
  const warn = (i: Omit<FlowIssue, 'severity'>) => issues.push({ ...i, severity: 'warning' });

  if (graph.nodes.length > MAX_FLOW_NODES)
    err({ nodeId: null, code: 'too_many_nodes', message: `A flow has at most ${MAX_FLOW_NODES} nodes` });

  const byId = new Map<string, FlowNode>();
  for (const n of graph.nodes) {
    if (byId.has(n.id)) err({ nodeId: n.id, code: 'duplicate_id', message: `Two nodes have the id ${n.id}` });
    byId.set(n.id, n);
  }
  const edgeIds = new Set<string>();
  for (const e of graph.edges) {
    if (edgeIds.has(e.id))
      err({ nodeId: e.source, edgeId: e.id, code: 'duplicate_id', message: `Two edges have the id ${e.id}` });
    edgeIds.add(e.id);
  }

  const starts = graph.nodes.filter((n) => n.type === 'start');
  if (starts.length === 0)
    err({ nodeId: null, code: 'start_missing', message: 'The flow has no start node' });
  for (const s of starts.slice(1))
    err({ nodeId: s.id, code: 'start_duplicate', message: `Node ${nameOf(s)}: a flow has one start node` });

  // Node-level rules.
  for (const n of graph.nodes) {
    if (n.type === 'randomizer') {
      const sum = n.data.branches.reduce((a, b) => a + b.percent, 0);
      if (sum !== 100)
        err({
          nodeId: n.id,
          code: 'randomizer_sum',
          message: `Node ${nameOf(n)}: the branches' percentages add up to ${sum}, not 100`,
        });
    }
    if (n.type === 'question' && n.data.validation === 'option' && n.data.options.length === 0)
      err({
        nodeId: n.id,
        code: 'options_missing',
        message: `Node ${nameOf(n)}: an option question needs options`,
      });
    const local =
      n.type === 'question' || n.type === 'message'
        ? n.data.options.map((o) => o.id)
        : n.type === 'condition'
          ? n.data.rules.map((r) => r.id)
          : n.type === 'randomizer'
            ? n.data.branches.map((b) => b.id)
            : [];
    if (new Set(local).size !== local.length)
      err({
        nodeId: n.id,
        code: 'duplicate_id',
        message: `Node ${nameOf(n)}: two options/rules/branches share an id`,
      });
  }

  // Edges: known ends, a real exit, one edge per exit.
  const out = new Map<string, Map<string, string>>(); // source → exit → target
  for (const e of graph.edges) {
    const src = byId.get(e.source);
    const dst = byId.get(e.target);
    if (!src || !dst) {
      err({
        nodeId: src ? e.source : dst ? e.target : null,
        edgeId: e.id,
        code: 'edge_invalid',
        message: `Edge ${e.id} goes from ${e.source} to ${e.target}: ${!src ? e.source : e.target} is not a node`,
      });
      continue;
    }
    if (!nodeExits(src).includes(e.sourceHandle)) {
      err({
        nodeId: src.id,
        edgeId: e.id,
        exit: e.sourceHandle,
        code: 'edge_invalid',
        message: `Node ${nameOf(src)} has no exit "${e.sourceHandle}"`,
      });
      continue;
    }
    if (dst.type === 'start') {
      err({
        nodeId: src.id,
        edgeId: e.id,
        code: 'edge_invalid',
        message: `Edge ${e.id} goes back to the start node`,
      });
      continue;
    }
    const exits = out.get(src.id) ?? new Map<string, string>();
    if (exits.has(e.sourceHandle))
      err({
        nodeId: src.id,
        edgeId: e.id,
        exit: e.sourceHandle,
        code: 'exit_duplicate',
        message: `Node ${nameOf(src)}: the exit "${e.sourceHandle}" has two edges`,
      });
    exits.set(e.sourceHandle, e.target);
    out.set(src.id, exits);
  }
  const next = (id: string) => [...(out.get(id)?.values() ?? [])];

  // Loops that never wait for the customer: cycles among the nodes that do not stop a step (Tarjan).
  {
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const onStack = new Set<string>();
    const stack: string[] = [];
    let counter = 0;
    const movers = graph.nodes.filter((n) => !STOPS.has(n.type)).map((n) => n.id);
    const moverSet = new Set(movers);
    const looped = new Set<string>();
    const strong = (v: string) => {
      // Iterative Tarjan (a 500-node chain must not overflow the stack).
      const work: { v: string; i: number }[] = [{ v, i: 0 }];
      index.set(v, counter);
      low.set(v, counter++);
      stack.push(v);
      onStack.add(v);
      while (work.length) {
        const top = work[work.length - 1]!;
        const succ = next(top.v).filter((w) => moverSet.has(w));
        if (top.i < succ.length) {
          const w = succ[top.i++]!;
          if (!index.has(w)) {
            index.set(w, counter);
            low.set(w, counter++);
            stack.push(w);
            onStack.add(w);
            work.push({ v: w, i: 0 });
          } else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
          continue;
        }
        work.pop();
        if (work.length) {
          const parent = work[work.length - 1]!.v;
          low.set(parent, Math.min(low.get(parent)!, low.get(top.v)!));
        }
        if (low.get(top.v) === index.get(top.v)) {
          const comp: string[] = [];
          let w: string;
          do {
            w = stack.pop()!;
            onStack.delete(w);
            comp.push(w);
          } while (w !== top.v);
          const selfLoop = comp.length === 1 && next(comp[0]!).includes(comp[0]!);
          if (comp.length > 1 || selfLoop) comp.forEach((c) => looped.add(c));
        }
      }
    };
    for (const v of movers) if (!index.has(v)) strong(v);
    for (const id of movers.filter((m) => looped.has(m)))
      err({
        nodeId: id,
        code: 'loop_without_wait',
        message: `Node ${nameOf(byId.get(id)!)} is on a loop with no question or wait: it would repeat without the customer`,
      });
  }

  // Reachability from the start.
  const start = starts[0];
  const reached = new Set<string>();
  if (start) {
    const queue = [start.id];
    while (queue.length) {
      const id = queue.pop()!;
      if (reached.has(id)) continue;
      reached.add(id);
      queue.push(...next(id));
    }
    for (const n of graph.nodes)
      if (!reached.has(n.id))
        warn({
          nodeId: n.id,
          code: 'unreachable',
          message: `Node ${nameOf(n)} cannot be reached from the start`,
        });
  }

  // Exits going nowhere (the run would end there).
  for (const n of graph.nodes) {
    for (const exit of nodeExits(n)) {
      if (out.get(n.id)?.has(exit) || isOptionalExit(exit)) continue;
      if ((n.type === 'question' || n.type === 'consent') && exit === 'timeout')
        warn({
          nodeId: n.id,
          exit,
          code: 'question_without_timeout',
          message: `Node ${nameOf(n)}: the question's timeout exit goes nowhere (the flow ends when nobody answers)`,
        });
      else
        warn({
          nodeId: n.id,
          exit,
          code: 'dangling_exit',
          message: `Node ${nameOf(n)}: the exit "${exit}" goes nowhere (the flow ends there)`,
        });
    }
  }

  // Variables read where no path from the start has set them (may-analysis: union over the ways in).
  if (start) {
    const setBefore = new Map<string, Set<string>>(); // node → variables set on some path before it
    const preds = new Map<string, string[]>();
    for (const [src, exits] of out)
      for (const dst of exits.values()) preds.set(dst, [...(preds.get(dst) ?? []), src]);
    let changed = true;
    for (let round = 0; changed && round < graph.nodes.length + 2; round++) {
      changed = false;
      for (const n of graph.nodes) {
        if (!reached.has(n.id)) continue;
        const acc = new Set<string>();
        for (const p of preds.get(n.id) ?? []) {
          const pn = byId.get(p);
          if (!pn || !reached.has(p)) continue;
          setBefore.get(p)?.forEach((v) => acc.add(v));
          setsOf(pn).forEach((v) => acc.add(v));
        }
        const prev = setBefore.get(n.id);
        if (!prev || prev.size !== acc.size) {
          setBefore.set(n.id, acc);
          changed = true;
        }
      }
    }
    for (const n of graph.nodes) {
      if (!reached.has(n.id)) continue;
      const known = setBefore.get(n.id) ?? new Set<string>();
      const own = n.type === 'question' ? [] : setsOf(n);
      for (const v of new Set(readsOf(n)))
        if (!known.has(v) && !own.includes(v))
          warn({
            nodeId: n.id,
            variable: v,
            code: 'variable_before_set',
            message: `Node ${nameOf(n)} reads {{${v}}} before any node sets it`,
          });
    }
  }
  return issues;
}
