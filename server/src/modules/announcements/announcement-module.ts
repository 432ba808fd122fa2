import type { AppModule } from '../app-module.js';
import { announcementRoutes } from './announcement-routes.js';
import type { AnnouncementService } from './announcement-service.js';

export const announcementModule = (service: AnnouncementService): AppModule => ({
  name: 'announcements',
  routes: [announcementRoutes(service)],
});
