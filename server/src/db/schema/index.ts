export * from './platform.js';
export * from './queues.js';
export * from './users.js';
export * from './messaging.js';
export * from './tickets-extra.js';
