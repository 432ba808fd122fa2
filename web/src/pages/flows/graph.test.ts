import { describe, expect, test } from 'vitest';
import { FlowGraph, FLOW_NODE_TYPES, nodeExits, type FlowNode } from '@recado/contracts';
import {
  connect,
  connectionProblem,
  copyNodes,
  definedVariables,
  docFromGraph,
  graphFromDoc,
  layoutDoc,
  newNode,
  paste,
  removeElements,
  updateNode,
  variableSuggestions,
  type FlowDoc,
} from './graph.js';

const texts = {
  message: 'Olá!',
  question: 'Qual é o seu nome?',
  retry: 'Não entendi.',
  optionA: 'A',
  optionB: 'B',
};
const at = { x: 10, y: 20 };

/** start → question(nome) → message; a second question with options. */
function sample(): FlowDoc {
  let doc = docFromGraph(null);
  const q = newNode('question', at, doc, texts);
  doc = { ...doc, nodes: [...doc.nodes, q] };
  const m = newNode('message', at, doc, texts);
  doc = { ...doc, nodes: [...doc.nodes, m] };
  doc = connect(doc, { source: 'start', sourceHandle: 'next', target: q.id });
  doc = connect(doc, { source: q.id, sourceHandle: 'answered', target: m.id });
  return doc;
}

describe('graph ↔ contract', () => {
  test('a new flow is the contract empty graph: one start node', () => {
    const doc = docFromGraph(null);
    expect(doc.nodes.map((n) => n.type)).toEqual(['start']);
    expect(FlowGraph.safeParse(graphFromDoc(doc)).success).toBe(true);
  });

  test('every node type the palette makes parses with the contract schema (those needing a company id get one)', () => {
    let doc = docFromGraph(null);
    for (const type of FLOW_NODE_TYPES.filter((t) => t !== 'start')) {
      const node = newNode(type, at, doc, texts, { promptId: 3, typebotId: 4, n8nId: 5 });
      doc = { ...doc, nodes: [...doc.nodes, node] };
    }
    const parsed = FlowGraph.safeParse(graphFromDoc(doc, { x: 1, y: 2, zoom: 0.5 }));
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    // Ids are unique and readable.
    expect(new Set(doc.nodes.map((n) => n.id)).size).toBe(doc.nodes.length);
    expect(doc.nodes.map((n) => n.id)).toContain('ai-prompt-1');
  });

  test('a saved graph comes back as drawn, viewport included', () => {
    const doc = sample();
    const g = graphFromDoc(doc, { x: 5, y: 6, zoom: 1.2 });
    const back = docFromGraph(FlowGraph.parse(JSON.parse(JSON.stringify(g))));
    expect(back).toEqual(doc);
    expect(g.viewport).toEqual({ x: 5, y: 6, zoom: 1.2 });
  });

  test('question and set nodes name new variables that are free; suggestions add the built-in ones', () => {
    let doc = sample();
    const q2 = newNode('question', at, doc, texts);
    expect(q2.type === 'question' && q2.data.variable).toBe('answer2');
    doc = { ...doc, nodes: [...doc.nodes, q2] };
    expect(definedVariables(doc)).toEqual(['answer', 'answer2']);
    expect(variableSuggestions(doc)).toEqual(
      expect.arrayContaining(['answer', 'name', 'contact.email', 'ticket.id']),
    );
  });
});

describe('editing', () => {
  test('one edge per exit: connecting an exit again moves its edge', () => {
    let doc = sample();
    const extra = newNode('close', at, doc, texts);
    doc = { ...doc, nodes: [...doc.nodes, extra] };
    doc = connect(doc, { source: 'question-1', sourceHandle: 'answered', target: extra.id });
    const fromAnswered = doc.edges.filter((e) => e.source === 'question-1' && e.sourceHandle === 'answered');
    expect(fromAnswered.map((e) => e.target)).toEqual([extra.id]);
    expect(FlowGraph.safeParse(graphFromDoc(doc)).success).toBe(true);
  });

  test('refused connections: into the start node, from an exit the node does not have', () => {
    const doc = sample();
    expect(connectionProblem(doc, { source: 'message-1', sourceHandle: 'next', target: 'start' })).toBe(
      'start_target',
    );
    expect(
      connectionProblem(doc, { source: 'message-1', sourceHandle: 'timeout', target: 'question-1' }),
    ).toBe('no_exit');
    expect(connect(doc, { source: 'message-1', sourceHandle: 'next', target: 'start' })).toBe(doc);
  });

  test('an option exit gets an edge id the contract accepts', () => {
    let doc = sample();
    const q = doc.nodes.find((n) => n.id === 'question-1') as Extract<FlowNode, { type: 'question' }>;
    doc = updateNode(doc, q.id, {
      ...q.data,
      validation: 'option',
      options: [{ id: 'sim', label: 'Sim' }],
    });
    expect(nodeExits(doc.nodes.find((n) => n.id === q.id)!)).toContain('option:sim');
    doc = connect(doc, { source: q.id, sourceHandle: 'option:sim', target: 'message-1' });
    const edge = doc.edges.find((e) => e.sourceHandle === 'option:sim')!;
    expect(edge.id).toBe('e-question-1-option-sim');
    expect(FlowGraph.safeParse(graphFromDoc(doc)).success).toBe(true);
    // Removing the option removes its edge (an exit that no longer exists).
    const q2 = doc.nodes.find((n) => n.id === q.id) as Extract<FlowNode, { type: 'question' }>;
    doc = updateNode(doc, q.id, { ...q2.data, options: [] });
    expect(doc.edges.some((e) => e.sourceHandle === 'option:sim')).toBe(false);
    expect(doc.edges.some((e) => e.sourceHandle === 'answered')).toBe(true);
  });

  test('deleting takes the node with its edges; the start node stays', () => {
    const doc = removeElements(sample(), ['question-1', 'start']);
    expect(doc.nodes.map((n) => n.id)).toEqual(['start', 'message-1']);
    expect(doc.edges).toEqual([]);
    const noEdge = removeElements(sample(), [], ['e-start-next']);
    expect(noEdge.edges.map((e) => e.id)).toEqual(['e-question-1-answered']);
  });

  test('copy and paste: new ids, moved, inner edges kept, edges from outside not, start never copied', () => {
    const doc = sample();
    const clip = copyNodes(doc, ['start', 'question-1', 'message-1'])!;
    expect(clip.nodes.map((n) => n.id)).toEqual(['question-1', 'message-1']);
    expect(clip.edges.map((e) => e.id)).toEqual(['e-question-1-answered']);
    const { doc: after, ids } = paste(doc, clip, { x: 40, y: 40 });
    expect(ids).toEqual(['question-2', 'message-2']);
    const pasted = after.nodes.find((n) => n.id === 'question-2')!;
    expect(pasted.position).toEqual({ x: at.x + 40, y: at.y + 40 });
    expect(after.edges.find((e) => e.source === 'question-2')).toMatchObject({
      sourceHandle: 'answered',
      target: 'message-2',
    });
    expect(after.edges).toHaveLength(3);
    expect(copyNodes(doc, ['start'])).toBeNull();
    expect(FlowGraph.safeParse(graphFromDoc(after)).success).toBe(true);
  });

  test('auto-layout places the start first and its successors to the right', () => {
    const doc = layoutDoc(sample(), new Map());
    const x = (id: string) => doc.nodes.find((n) => n.id === id)!.position.x;
    expect(x('start')).toBeLessThan(x('question-1'));
    expect(x('question-1')).toBeLessThan(x('message-1'));
  });
});
