import type { AppModule } from '../app-module.js';
import { chatRoutes } from './chat-routes.js';
import type { ChatService } from './chat-service.js';

export const chatModule = (chats: ChatService): AppModule => ({
  name: 'chats',
  routes: [chatRoutes(chats)],
  // An internal chat's room: members only.
  rooms: { chat: (t, chatId) => chats.isMember(t, chatId) },
});
