import type { AppModule } from '../app-module.js';
import { macroRoutes } from './macro-routes.js';
import type { MacroService } from './macro-service.js';

/** #32.1 Macros (docs/productivity.md "Macros"). */
export const macroModule = (service: MacroService): AppModule => ({
  name: 'macros',
  routes: [macroRoutes(service)],
});
