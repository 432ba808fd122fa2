import { Gauge, type Registry } from 'prom-client';
import type { AppModule } from '../app-module.js';
import { connectionHealthListeners } from './health-listener.js';
import { connectionHealthRoutes } from './health-routes.js';
import type { ConnectionHealthService } from './health-service.js';

/**
 * `recado_connection_uptime_ratio{connection,company,window}` on /metrics (docs/metrics.md): each connection's
 * CONNECTED time ÷ observed time over 7 and 30 days, read from the history at each scrape.
 */
export function registerUptimeMetric(registry: Registry, health: Pick<ConnectionHealthService, 'uptimeAll'>) {
  new Gauge({
    name: 'recado_connection_uptime_ratio',
    help: 'Share of the window a connection was CONNECTED (0-1), over the time its history covers',
    labelNames: ['connection', 'company', 'window'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const u of await health.uptimeAll())
        this.set(
          { connection: String(u.whatsappId), company: String(u.companyId), window: u.window },
          u.ratio,
        );
    },
  });
}

/** #33.1 and #33.2 Connection health: history, uptime, outage alerts (docs/connection-health.md). */
export const connectionHealthModule = (
  health: ConnectionHealthService,
  opts: { registry?: Registry } = {},
): AppModule => {
  if (opts.registry) registerUptimeMetric(opts.registry, health);
  return {
    name: 'connection-health',
    routes: [connectionHealthRoutes(health)],
    listeners: (bus) => connectionHealthListeners(bus, health),
    jobs: Object.values(health.jobs),
  };
};
