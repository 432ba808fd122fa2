import { expect } from 'vitest';
import type { FlowEdge, FlowGraph } from '@recado/contracts';
import type { Session, TestApp } from '../../../test/helpers.js';

type NodeSpec = { id: string; type: string; data?: Record<string, unknown>; label?: string };

/**
 * Builds graphs for tests: `graph([nodes], [[from, exit, to], …])` (a start node is added when missing, at
 * the front; positions are laid out on a line).
 */
export function graph(nodes: NodeSpec[], links: [string, string, string][]): FlowGraph {
  const all = nodes.some((n) => n.type === 'start') ? nodes : [{ id: 'start', type: 'start' }, ...nodes];
  return {
    nodes: all.map((n, i) => ({
      id: n.id,
      type: n.type,
      position: { x: i * 200, y: 0 },
      data: { ...(n.label ? { label: n.label } : {}), ...(n.data ?? {}) },
    })) as unknown as FlowGraph['nodes'],
    edges: links.map(([source, sourceHandle, target], i): FlowEdge => ({
      id: `e${i}`,
      source,
      sourceHandle,
      target,
    })),
  };
}

/** A linear chain start → a → b → … with `next` exits (answered for questions). */
export const chain = (nodes: NodeSpec[]) =>
  graph(
    nodes,
    [{ id: 'start', type: 'start' }, ...nodes].slice(0, -1).map((n, i) => {
      const exit = n.type === 'question' ? 'answered' : 'next';
      return [n.id, exit, nodes[i]!.id] as [string, string, string];
    }),
  );

/** Flow API calls of one session. */
export function flowApi(t: TestApp, s: Session) {
  const api = t.as(s);
  return {
    api,
    async create(g: FlowGraph, name = `Fluxo ${Math.random().toString(36).slice(2, 7)}`) {
      const res = await api.post('/flows', { name, graph: g });
      expect(res.status, await res.clone().text()).toBe(201);
      return (await res.json()) as { id: number; graph: FlowGraph };
    },
    async publish(id: number) {
      const res = await api.post(`/flows/${id}/publish`);
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as { publishedVersion: number };
    },
    /** Creates, publishes and sets it as the connection's flow. */
    async onConnection(whatsappId: number, g: FlowGraph) {
      const f = await this.create(g);
      await this.publish(f.id);
      const res = await api.put(`/whatsapp/${whatsappId}`, { flowId: f.id });
      expect(res.status, await res.clone().text()).toBe(200);
      return f;
    },
  };
}
