import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';
import { ListQuery } from './users.js';

/**
 * Internal chat (docs/internal-chat.md): conversations between users of one company. Only members
 * read or write a chat; its owner (the creator) edits and deletes it. Plan flag useInternalChat.
 */
export const CHAT_TITLE_MAX = 100;
export const CHAT_MESSAGE_MAX = 4000;
/** Members a chat may have (the owner included). */
export const CHAT_MEMBERS_MAX = 200;

const Id = z.coerce.number().int().positive().max(2147483647);

/** A chat member as the chat modal sends it: an id and a name (the name is shown only; the id decides). */
export const ChatUserRef = z.object({ id: Id, name: z.string().max(200).optional() });

/** POST /chats: title required; at least one user (docs/internal-chat.md). The creator is added as owner and member. */
export const ChatInput = z.object({
  title: z.string().trim().min(1).max(CHAT_TITLE_MAX),
  users: z.array(ChatUserRef).min(1).max(CHAT_MEMBERS_MAX),
});
export type ChatInput = z.input<typeof ChatInput>;

/** PUT /chats/{id} (owner only): a new title and/or the members (the owner always stays). */
export const ChatUpdate = z.object({
  title: ChatInput.shape.title.optional(),
  users: ChatInput.shape.users.optional(),
});
export type ChatUpdate = z.input<typeof ChatUpdate>;

/** POST /chats/{id}/messages: whitespace-only is not a message. */
export const ChatMessageInput = z.object({ message: z.string().trim().min(1).max(CHAT_MESSAGE_MAX) });
export type ChatMessageInput = z.input<typeof ChatMessageInput>;

/** POST /chats/{id}/read: the spec's client sends its own userId; another user's id is refused. */
export const ChatReadInput = z.object({ userId: Id.optional() }).optional();

/** GET /chats: searchParam (title), pageNumber; newest activity first. */
export const ChatListQuery = ListQuery;
export type ChatListQuery = z.infer<typeof ChatListQuery>;

/** GET /chats/{id}/messages: pageNumber 1 is the newest page; each page is in time order. */
export const ChatMessagesQuery = z.object({
  pageNumber: z.coerce.number().int().min(1).max(100000).optional().default(1),
});

/** A chat route's id: the numeric id, or the chat's uuid (the web route /chats/{uuid}). */
export const ChatIdParam = z.object({
  id: z
    .string()
    .regex(/^(\d{1,10}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i, 'a chat id or uuid'),
});

export const ChatMember = z
  .looseObject({
    userId: z.number(),
    /** Messages this member has not read. */
    unreads: z.number(),
    user: z.looseObject({
      id: z.number(),
      name: z.string(),
    }),
  })
  .meta({ id: 'ChatMember' });
export type ChatMember = Wire<typeof ChatMember>;

export const Chat = z
  .looseObject({
    id: z.number(),
    uuid: z.string(),
    title: z.string(),
    ownerId: z.number(),
    lastMessage: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    users: z.array(ChatMember),
  })
  .meta({ id: 'Chat' });
export type Chat = Wire<typeof Chat>;

export const ChatMessage = z
  .looseObject({
    id: z.number(),
    chatId: z.number(),
    senderId: z.number(),
    sender: z.looseObject({
      id: z.number(),
      name: z.string(),
    }),
    message: z.string(),
    createdAt: Timestamp,
  })
  .meta({ id: 'ChatMessage' });
export type ChatMessage = Wire<typeof ChatMessage>;

export const ChatList = z
  .looseObject({
    records: z.array(Chat),
    hasMore: z.boolean(),
    /** How many of the caller's chats (all pages) have unread messages for the caller: the menu's dot. */
    unreadChats: z.number(),
  })
  .meta({ id: 'ChatList' });
export type ChatList = Wire<typeof ChatList>;

export const ChatMessageList = z
  .looseObject({
    records: z.array(ChatMessage),
    hasMore: z.boolean(),
  })
  .meta({ id: 'ChatMessageList' });
export type ChatMessageList = Wire<typeof ChatMessageList>;

/**
 * `company-{id}-chat`, `company-{id}-chat-user-{userId}` and `company-{id}-chat-{chatId}` (docs/internal-chat.md),
 * delivered only to the chat's members: a new message (with the chat and its counters), a changed chat
 * (title, members, counters after a read), a created or deleted chat.
 */
export type ChatEvent =
  | { action: 'new-message'; chat: Chat; newMessage: ChatMessage }
  | { action: 'create' | 'update'; chat: Chat }
  | { action: 'delete'; chatId: number };

/** Event names of the per-user and per-chat channels (the general one is companyEvent(companyId, 'chat')). */
export const chatUserEvent = (companyId: number, userId: number) =>
  `company-${companyId}-chat-user-${userId}`;
export const chatIdEvent = (companyId: number, chatId: number) => `company-${companyId}-chat-${chatId}`;

/** The caller's unread count in a chat. */
export const unreadsOf = (chat: Pick<Chat, 'users'>, userId: number) =>
  chat.users.find((u) => u.userId === userId)?.unreads ?? 0;
