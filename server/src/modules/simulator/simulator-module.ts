import type { AppModule } from '../app-module.js';
import { simulatorRoutes } from './simulator-routes.js';
import type { SimulatorService } from './simulator-service.js';

export const simulatorModule = (simulator: SimulatorService): AppModule => ({
  name: 'simulator',
  routes: [simulatorRoutes(simulator)],
  // Following a simulator conversation (the ticket rule, applied to its tickets), or all of them (managers).
  rooms: { simulator: (t, whatsappId, number) => simulator.mayFollow(t, whatsappId, number) },
});
