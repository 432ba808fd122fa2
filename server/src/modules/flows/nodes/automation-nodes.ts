import type { FlowExecContext, FlowExecResult } from '../flow-executors.js';
import { registerFlowNodeExecutor } from '../flow-executors.js';
import { exitHasEdge } from './http-node.js';

/** What a held run is woken with when the automation's hold ends (flow-nodes' automation.ended listener). */
export interface AutomationResume {
  automation: 'handoff' | 'accepted' | 'transferred' | 'closed' | 'error';
  error?: string;
}

type HoldRef = { kind: 'prompt'; promptId: number } | { kind: 'typebot' | 'n8n'; integrationId: number };

const labels = { prompt: 'AI prompt', typebot: 'Typebot', n8n: 'n8n' } as const;

/** The `error` exit when it leads somewhere, else the run fails with the reason (people take the ticket). */
const failed = (
  ctx: Pick<FlowExecContext, 'graph'> & { node: { id: string } },
  why: string,
): FlowExecResult => (exitHasEdge(ctx, 'error') ? { exit: 'error', variables: {} } : { fail: why });

/**
 * ai_prompt, typebot and n8n (docs/flows.md "AI prompt, Typebot and n8n"): the node hands the ticket to an
 * existing prompt or queue integration of the company through the automation engine's own hold
 * (automation-service.ts `engageForFlow`: the same conversation, hand-off line, Typebot session, n8n actions,
 * failure notes and incidents as a queue's automation), from the customer's next message on. The run is
 * `held` meanwhile; when the hold ends (`automation.ended`, level 'flow') the run is resumed: a hand-off
 * leaves by `next`, a failure by `error`; a person or the integration moving the ticket ends the run.
 */
async function hold<T extends 'ai_prompt' | 'typebot' | 'n8n'>(
  ctx: FlowExecContext<T>,
  ref: HoldRef,
): Promise<FlowExecResult> {
  const e = ctx.event;
  if (e.kind === 'enter') {
    const automation = ctx.deps.automation;
    if (!automation) return failed(ctx, `${labels[ref.kind]} unavailable`);
    const taken = await automation.engageForFlow(ctx.companyId, ctx.ticket.id, ref);
    if (!taken) {
      const what = ref.kind === 'prompt' ? `prompt ${ref.promptId}` : `integration ${ref.integrationId}`;
      return failed(
        ctx,
        `${what} could not take the conversation (missing, of another type, or the ticket is not waiting)`,
      );
    }
    return { hold: { status: 'held', state: { kind: ref.kind } } };
  }
  if (e.kind === 'resume') {
    const r = e.data as Partial<AutomationResume>;
    if (r.automation === 'handoff') return { exit: 'next' };
    if (r.automation === 'error') return failed(ctx, `${labels[ref.kind]} failed: ${r.error ?? 'unknown'}`);
    if (r.automation === 'closed') return { end: 'completed' };
    if (r.automation === 'accepted' || r.automation === 'transferred') return { end: 'transferred' };
  }
  // A customer message while held is the automation's to answer; anything else leaves the run as it is.
  return { hold: { status: 'held', state: { ...ctx.nodeState } } };
}

registerFlowNodeExecutor('ai_prompt', {
  execute: (ctx) => hold(ctx, { kind: 'prompt', promptId: ctx.node.data.promptId }),
});
registerFlowNodeExecutor('typebot', {
  execute: (ctx) => hold(ctx, { kind: 'typebot', integrationId: ctx.node.data.integrationId }),
});
registerFlowNodeExecutor('n8n', {
  execute: (ctx) => hold(ctx, { kind: 'n8n', integrationId: ctx.node.data.integrationId }),
});
