import type { AppModule } from '../app-module.js';
import { automationListeners, transcriptionListeners } from './automation-listener.js';
import type { AutomationService } from './automation-service.js';
import { automationRoutes } from './automation-routes.js';

/** The hand-off engine (docs/automation.md): listed before the bot, so a ticket it takes gets no menu. */
export const automationModule = (automation: AutomationService): AppModule => ({
  name: 'automation',
  routes: [automationRoutes(automation)],
  listeners: (bus) => automationListeners(bus, automation),
  jobs: Object.values(automation.jobs),
});

/** Voice notes transcribed for attendants: listed after the bot, so a note's text never delays the menu. */
export const transcriptionModule = (automation: AutomationService): AppModule => ({
  name: 'transcription',
  listeners: (bus) => transcriptionListeners(bus, automation),
});
