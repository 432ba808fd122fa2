import { describe, expect, test } from 'vitest';
import { FlowGraph, type FlowNode } from '@recado/contracts';
import { botMenuToFlow, type BotMenu } from './bot-to-flow.js';

const texts = { invalidAnswer: 'Opção inválida.', backLabel: 'Voltar', outOfHours: 'Fechado.' };
const base: Omit<BotMenu, 'queues'> = {
  greetingMessage: 'Olá! Escolha um setor:',
  outOfHoursMessage: '',
  scheduleType: 'disabled',
  greetOneQueue: true,
  maxInvalidAnswers: 3,
  timeLimitMinutes: 0,
  texts,
};
const opt = (id: number, parentId: number | null, title: string, message = '', option = String(id)) => ({
  id,
  parentId,
  title,
  message,
  option,
});

const byId = (g: FlowGraph) => new Map(g.nodes.map((n) => [n.id, n]));
const next = (g: FlowGraph, source: string, exit: string) =>
  g.edges.find((e) => e.source === source && e.sourceHandle === exit)?.target;

describe('a queue menu as a flow', () => {
  test('greeting with the queues, nested options with the way back, leaves transfer to their queue', () => {
    const g = botMenuToFlow({
      ...base,
      queues: [
        {
          id: 11,
          name: 'Suporte',
          greetingMessage: 'Você está no Suporte.',
          outOfHoursMessage: '',
          options: [
            opt(2, null, 'Internet', 'Qual problema?', '2'),
            opt(1, null, 'Boletos', 'Vamos ver seu boleto.', '1'),
            opt(3, 2, 'Lenta', 'Um técnico vai ajudar.', '1'),
            opt(4, 2, 'Sem sinal', '', '2'),
          ],
        },
        {
          id: 12,
          name: 'Vendas',
          greetingMessage: 'Você está em Vendas.',
          outOfHoursMessage: '',
          options: [],
        },
      ],
    });
    expect(FlowGraph.safeParse(g).success).toBe(true);
    const nodes = byId(g);
    const menu = nodes.get(next(g, 'start', 'next')!) as Extract<FlowNode, { type: 'question' }>;
    expect(menu.type).toBe('question');
    expect(menu.data).toMatchObject({
      text: 'Olá! Escolha um setor:',
      validation: 'option',
      retryMessage: 'Opção inválida.',
      maxRetries: 2,
    });
    expect(menu.data.options.map((o) => o.label)).toEqual(['Suporte', 'Vendas']);

    // Vendas has no options: its greeting, then the transfer.
    const vendas = next(g, menu.id, 'option:q12')!;
    expect(nodes.get(vendas)).toMatchObject({ type: 'message', data: { text: 'Você está em Vendas.' } });
    expect(nodes.get(next(g, vendas, 'next')!)).toMatchObject({
      type: 'transfer',
      data: { target: 'queue', queueId: 12 },
    });

    // Suporte's tree: options by key, with "Voltar" back to the list of queues.
    const suporte = nodes.get(next(g, menu.id, 'option:q11')!) as Extract<FlowNode, { type: 'question' }>;
    expect(suporte.data.text).toBe('Você está no Suporte.');
    expect(suporte.data.options.map((o) => o.label)).toEqual(['Boletos', 'Internet', 'Voltar']);
    expect(next(g, suporte.id, 'option:back')).toBe(menu.id);
    const internet = nodes.get(next(g, suporte.id, 'option:o2')!) as Extract<FlowNode, { type: 'question' }>;
    expect(internet.data.options.map((o) => o.label)).toEqual(['Lenta', 'Sem sinal', 'Voltar']);
    expect(next(g, internet.id, 'option:back')).toBe(suporte.id);
    const lenta = next(g, internet.id, 'option:o3')!;
    expect(nodes.get(lenta)).toMatchObject({ type: 'message', data: { text: 'Um técnico vai ajudar.' } });
    expect(nodes.get(next(g, lenta, 'next')!)).toMatchObject({ type: 'transfer', data: { queueId: 11 } });
    // A leaf without a message transfers at once.
    expect(nodes.get(next(g, internet.id, 'option:o4')!)).toMatchObject({
      type: 'transfer',
      data: { queueId: 11 },
    });
    // Edges are unique per exit and point at existing nodes.
    const exits = g.edges.map((e) => `${e.source}/${e.sourceHandle}`);
    expect(new Set(exits).size).toBe(exits.length);
    expect(g.edges.every((e) => nodes.has(e.source) && nodes.has(e.target))).toBe(true);
    expect(new Set(g.edges.map((e) => e.id)).size).toBe(g.edges.length);
  });

  test('one queue is chosen at once; company hours put a condition in front', () => {
    const g = botMenuToFlow({
      ...base,
      scheduleType: 'company',
      outOfHoursMessage: 'Voltamos às 8h.',
      greetOneQueue: false,
      queues: [{ id: 5, name: 'Único', greetingMessage: 'Oi!', outOfHoursMessage: '', options: [] }],
    });
    const nodes = byId(g);
    const hours = nodes.get(next(g, 'start', 'next')!)!;
    expect(hours).toMatchObject({
      type: 'condition',
      data: { rules: [{ kind: 'business_hours', op: 'open' }] },
    });
    // Greeting off for a single queue: straight to the transfer.
    expect(nodes.get(next(g, hours.id, 'true')!)).toMatchObject({ type: 'transfer', data: { queueId: 5 } });
    expect(nodes.get(next(g, hours.id, 'false')!)).toMatchObject({
      type: 'message',
      data: { text: 'Voltamos às 8h.' },
    });
  });

  test('queue hours: a closed queue tells its own text and keeps the ticket in it', () => {
    const g = botMenuToFlow({
      ...base,
      scheduleType: 'queue',
      queues: [
        { id: 1, name: 'A', greetingMessage: '', outOfHoursMessage: 'A fechada.', options: [] },
        { id: 2, name: 'B', greetingMessage: '', outOfHoursMessage: '', options: [] },
      ],
    });
    const nodes = byId(g);
    const gate = nodes.get(next(g, 'queues', 'option:q1')!)!;
    expect(gate).toMatchObject({ type: 'condition', data: { rules: [{ queueId: 1, op: 'open' }] } });
    const closed = next(g, gate.id, 'false')!;
    expect(nodes.get(closed)).toMatchObject({ type: 'message', data: { text: 'A fechada.' } });
    expect(nodes.get(next(g, closed, 'next')!)).toMatchObject({ type: 'transfer', data: { queueId: 1 } });
    const other = next(g, next(g, 'queues', 'option:q2')!, 'false')!;
    expect(nodes.get(other)).toMatchObject({ data: { text: 'Fechado.' } });
  });

  test('no queues: only the greeting', () => {
    const g = botMenuToFlow({ ...base, queues: [] });
    expect(g.nodes.map((n) => n.type)).toEqual(['start', 'message']);
  });
});
