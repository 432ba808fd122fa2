import type { AppModule } from '../app-module.js';
import { pushListeners } from './push-listener.js';
import { pushRoutes } from './push-routes.js';
import type { PushService } from './push-service.js';

export const pushModule = (push: PushService): AppModule => ({
  name: 'push',
  routes: [pushRoutes(push)],
  listeners: (bus) => pushListeners(bus, push),
  jobs: Object.values(push.jobs),
});
