import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { AppModule } from '../app-module.js';
import { flowConvertService, type FlowWriter } from './flow-convert.js';
import { flowNodesListeners, type FlowNodesListenerDeps } from './flow-nodes-listener.js';
import { flowNodesRoutes } from './flow-nodes-routes.js';
import { flowStatsService } from './flow-stats-service.js';

/**
 * The flows' integration side (docs/flows.md): analytics (`GET /flows/{id}/stats`, counted from the runtime's
 * flow.steps / flow.ended), the queue menu's conversion (`POST /flows/convert`), the flow.completed /
 * flow.failed webhooks (flow.outcome), and held runs resumed when their prompt or integration hands back.
 * The http / ai_prompt / typebot / n8n executors register themselves (modules/flows/nodes/).
 */
export function flowNodesModule(deps: {
  db: Db;
  clock: Clock;
  log: { warn(o: object, m: string): void };
  flows: FlowWriter;
  resume: FlowNodesListenerDeps['resume'];
}): AppModule & { stats: ReturnType<typeof flowStatsService> } {
  const stats = flowStatsService(deps);
  const convert = flowConvertService(deps);
  return {
    name: 'flow-nodes',
    stats,
    routes: [flowNodesRoutes(stats, convert)],
    listeners: (bus) => flowNodesListeners(bus, { db: deps.db, stats, resume: deps.resume, log: deps.log }),
  };
}
