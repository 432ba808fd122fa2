import { expect } from 'vitest';
import type { App } from '../../app.js';
import type { Session, TestApp } from '../../../test/helpers.js';
import { botKit } from '../bot/bot-test-kit.js';

export const PROMPT_TEXT =
  'Você é o assistente da loja. Responda em português, com educação. Quando o cliente pedir um atendente, ' +
  'responda apenas: Ação: Transferir para o setor de atendimento';

/** What the automation tests build: queues, a simulator connection, prompts; and a customer's phone. */
export function automationKit(t: TestApp, target?: { app: App; url: string }) {
  const kit = botKit(t, target);
  const base = target?.url ?? t.url;
  const call = async (s: Session, method: string, path: string, body?: unknown) =>
    fetch(`${base}/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${s.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function prompt(admin: Session, queueId: number, o: Record<string, unknown> = {}) {
    const res = await call(admin, 'POST', '/prompt', {
      name: 'Assistente da loja',
      prompt: PROMPT_TEXT,
      model: 'gpt-4o-mini',
      maxTokens: 120,
      temperature: 0.5,
      apiKey: 'sk-company-key',
      queueId,
      maxMessages: 10,
      ...o,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as { id: number };
  }

  /** The customer sends a text or a file; resolves once the company has it and every listener is done. */
  async function send(
    admin: Session,
    whatsappId: number,
    number: string,
    input: { body?: string; media?: { mimetype: string; filename: string; data: string } },
  ): Promise<string[]> {
    if (!input.media) return kit.say(admin, whatsappId, number, input.body ?? '');
    const id = `auto-test-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const before = (await kit.phone(admin, whatsappId, number)).length;
    const res = await call(admin, 'POST', `/simulator/${whatsappId}/inbound`, { id, from: number, ...input });
    expect(res.status, await res.clone().text()).toBe(202);
    const end = Date.now() + 15_000;
    for (;;) {
      const conv = await kit.phone(admin, whatsappId, number);
      if (conv.find((m) => m.id === id && m.ack >= 2)) break;
      if (Date.now() > end) throw new Error(`message ${id} never reached the company`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await kit.idle();
    return (await kit.phone(admin, whatsappId, number))
      .slice(before)
      .filter((m) => m.fromMe)
      .map((m) => m.body);
  }

  return { ...kit, call, prompt, send };
}
