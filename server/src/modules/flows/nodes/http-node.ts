import { registerFlowNodeExecutor, type FlowExecContext } from '../flow-executors.js';
import { runHttpRequest } from './http-request.js';

/** Whether the node's exit leads somewhere (an `error` exit with no edge fails the run instead). */
export const exitHasEdge = (ctx: Pick<FlowExecContext, 'graph'> & { node: { id: string } }, exit: string) =>
  ctx.graph.edges.some((e) => e.source === ctx.node.id && e.sourceHandle === exit);

/**
 * http (docs/flows.md "HTTP request"): the request with the run's variables, through the outbound-URL guard
 * (loopback and private addresses refused without ALLOW_PRIVATE_URLS) within the node's timeout; a 2xx
 * answer's JSON fields go into variables and the run leaves by `success`. Anything else leaves by `error`,
 * or — when `error` leads nowhere — fails the run (the ticket goes to people with a note naming the node).
 */
registerFlowNodeExecutor('http', {
  async execute(ctx) {
    const resolve = (name: string) => ctx.render(`{{${name}}}`);
    const out = await runHttpRequest(ctx.node.data, resolve, {
      allowPrivateUrls: ctx.deps.config.allowPrivateUrls,
    });
    ctx.deps.log.info(
      { runId: ctx.run.id, nodeId: ctx.node.id, status: out.status ?? null, exit: out.exit },
      'flow http node',
    );
    if (out.exit === 'success') return { exit: 'success', variables: out.variables };
    if (exitHasEdge(ctx, 'error')) return { exit: 'error', variables: out.variables };
    return { fail: out.error ?? 'request failed', variables: out.variables };
  },
});
