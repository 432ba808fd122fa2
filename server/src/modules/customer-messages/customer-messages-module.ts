import type { AppModule } from '../app-module.js';
import type { CustomerMessages } from './customer-messages.js';
import { customerMessageListeners } from './customer-messages-listener.js';

export const customerMessageModule = (texts: CustomerMessages): AppModule => ({
  name: 'customer-messages',
  listeners: (bus) => customerMessageListeners(bus, texts),
});
