import type { AppModule } from '../app-module.js';
import { fileListRoutes } from './file-list-routes.js';
import type { FileListService } from './file-list-service.js';

export const fileListModule = (service: FileListService): AppModule => ({
  name: 'files',
  routes: [fileListRoutes(service)],
});
