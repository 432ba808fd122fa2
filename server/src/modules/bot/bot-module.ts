import type { AppModule } from '../app-module.js';
import { botListeners } from './bot-listener.js';
import type { BotService } from './bot-service.js';

export const botModule = (bot: BotService): AppModule => ({
  name: 'bot',
  listeners: (bus) => botListeners(bus, bot),
  jobs: Object.values(bot.jobs),
});
