import {
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { companies, timestamps } from './platform.js';
import { users } from './users.js';

/** Internal chat (docs/internal-chat.md): a conversation between users of one company; its creator owns it. */
export const chats = pgTable(
  'chats',
  {
    id: serial('id').primaryKey(),
    uuid: uuid('uuid').notNull().defaultRandom(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    lastMessage: text('last_message').notNull().default(''),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('chats_uuid_uq').on(t.uuid),
    index('chats_company_updated_idx').on(t.companyId, t.updatedAt, t.id),
  ],
);

/** A chat's members, each with the count of messages it has not read (changed with each message). */
export const chatUsers = pgTable(
  'chat_users',
  {
    chatId: integer('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    unreads: integer('unreads').notNull().default(0),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.chatId, t.userId] }), index('chat_users_user_idx').on(t.userId)],
);

export const chatMessages = pgTable(
  'chat_messages',
  {
    id: serial('id').primaryKey(),
    chatId: integer('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    senderId: integer('sender_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    message: text('message').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('chat_messages_chat_idx').on(t.chatId, t.id)],
);
