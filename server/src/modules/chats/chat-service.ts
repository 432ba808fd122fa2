import { and, asc, count, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import {
  PAGE_SIZE,
  chatIdEvent,
  chatUserEvent,
  companyEvent,
  rooms,
  type Chat,
  type ChatEvent,
  type ChatList,
  type ChatListQuery,
  type ChatMessage,
  type ChatMessageList,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { chatMessages, chats, chatUsers, users } from '../../db/schema/index.js';
import { assertCompanyRefs } from '../../db/company-refs.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';
import type { DomainBus } from '../../events/domain-events.js';
import { containsText, isDbId } from '../../lib/sql.js';
import { truncate } from '../../lib/text.js';
import { requirePlanFlag } from '../companies/company-queries.js';

type ChatRow = typeof chats.$inferSelect;

/** A missing chat, another company's chat and a chat the caller is not a member of answer the same. */
const notFound = () => new AppError('ERR_NOT_FOUND', 404, 'Chat not found');

export type ChatService = ReturnType<typeof chatService>;

/**
 * Internal chat (docs/internal-chat.md). Only members list, read and write a chat; only its owner changes or
 * deletes it. Every event goes to the members' own rooms (`company-{id}-user-{userId}`), never to the
 * company room: a non-member, or another company, hears nothing.
 */
export function chatService(deps: { db: Db; events: Events; bus?: DomainBus }) {
  const { db, events } = deps;

  async function requirePlan(companyId: number) {
    await requirePlanFlag(db, companyId, 'useInternalChat', 'the internal chat');
  }

  /** The chat named by a numeric id or uuid, of the caller's company and with the caller as a member. */
  async function memberChat(t: Tenant, idOrUuid: string | number): Promise<ChatRow> {
    const key = String(idOrUuid);
    const byId = /^\d+$/.test(key);
    if (byId && !isDbId(Number(key))) throw notFound();
    const [hit] = await db
      .select({ chat: chats })
      .from(chats)
      .innerJoin(chatUsers, and(eq(chatUsers.chatId, chats.id), eq(chatUsers.userId, t.userId)))
      .where(
        and(
          eq(chats.companyId, t.companyId),
          byId ? eq(chats.id, Number(key)) : eq(chats.uuid, key.toLowerCase()),
        ),
      );
    if (!hit) throw notFound();
    return hit.chat;
  }

  async function ownedChat(t: Tenant, id: string | number): Promise<ChatRow> {
    const chat = await memberChat(t, id);
    if (chat.ownerId !== t.userId)
      throw new AppError('ERR_NO_PERMISSION', 403, 'Only the chat owner changes or deletes it');
    return chat;
  }

  /** Chat views with their members, in the order of `rows`. */
  async function views(rows: ChatRow[]): Promise<Chat[]> {
    if (!rows.length) return [];
    const members = await db
      .select({
        chatId: chatUsers.chatId,
        userId: chatUsers.userId,
        unreads: chatUsers.unreads,
        name: users.name,
      })
      .from(chatUsers)
      .innerJoin(users, eq(users.id, chatUsers.userId))
      .where(
        inArray(
          chatUsers.chatId,
          rows.map((r) => r.id),
        ),
      )
      .orderBy(asc(users.name), asc(users.id));
    return rows.map((r) => ({
      id: r.id,
      uuid: r.uuid,
      title: r.title,
      ownerId: r.ownerId,
      lastMessage: r.lastMessage,
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
      users: members
        .filter((m) => m.chatId === r.id)
        .map((m) => ({ userId: m.userId, unreads: m.unreads, user: { id: m.userId, name: m.name } })),
    }));
  }

  async function viewOf(companyId: number, id: number): Promise<Chat | undefined> {
    const [row] = await db
      .select()
      .from(chats)
      .where(and(eq(chats.id, id), eq(chats.companyId, companyId)));
    return row ? (await views([row]))[0] : undefined;
  }

  /**
   * The three channels of docs/internal-chat.md (general, per user, per chat id), each sent to the members' user rooms
   * only. `extra` are users who must hear it too (members just removed hear the chat leave them).
   */
  function announce(companyId: number, memberIds: number[], payload: ChatEvent, chatId: number) {
    const memberRooms = memberIds.map((uid) => rooms.user(companyId, uid));
    if (!memberRooms.length) return;
    events.toRoomNamed(memberRooms, companyEvent(companyId, 'chat'), payload);
    events.toRoomNamed(memberRooms, chatIdEvent(companyId, chatId), payload);
    for (const uid of memberIds)
      events.toRoomNamed(rooms.user(companyId, uid), chatUserEvent(companyId, uid), payload);
  }

  /** Members as the body names them: the caller's company users, the owner always among them. */
  async function memberIds(t: Tenant, ownerId: number, listed: { id: number }[]): Promise<number[]> {
    const ids = [...new Set([ownerId, ...listed.map((u) => u.id)])];
    await assertCompanyRefs(db, t.companyId, { user: ids });
    return ids;
  }

  async function list(t: Tenant, q: ChatListQuery): Promise<ChatList> {
    await requirePlan(t.companyId);
    const mine = and(
      eq(chats.companyId, t.companyId),
      q.searchParam ? containsText(chats.title, q.searchParam) : undefined,
    );
    const rows = await db
      .select({ chat: chats })
      .from(chats)
      .innerJoin(chatUsers, and(eq(chatUsers.chatId, chats.id), eq(chatUsers.userId, t.userId)))
      .where(mine)
      .orderBy(desc(chats.updatedAt), desc(chats.id))
      .limit(PAGE_SIZE + 1)
      .offset((q.pageNumber - 1) * PAGE_SIZE);
    const [unread] = await db
      .select({ n: count() })
      .from(chatUsers)
      .innerJoin(chats, eq(chats.id, chatUsers.chatId))
      .where(and(eq(chats.companyId, t.companyId), eq(chatUsers.userId, t.userId), gt(chatUsers.unreads, 0)));
    return {
      records: await views(rows.slice(0, PAGE_SIZE).map((r) => r.chat)),
      hasMore: rows.length > PAGE_SIZE,
      unreadChats: Number(unread?.n ?? 0),
    };
  }

  async function get(t: Tenant, id: string): Promise<Chat> {
    await requirePlan(t.companyId);
    return (await views([await memberChat(t, id)]))[0]!;
  }

  async function create(t: Tenant, input: { title: string; users: { id: number }[] }): Promise<Chat> {
    await requirePlan(t.companyId);
    const ids = await memberIds(t, t.userId, input.users);
    const id = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(chats)
        .values({ companyId: t.companyId, title: input.title, ownerId: t.userId })
        .returning({ id: chats.id });
      await tx.insert(chatUsers).values(ids.map((userId) => ({ chatId: row!.id, userId })));
      return row!.id;
    });
    const chat = (await viewOf(t.companyId, id))!;
    announce(t.companyId, ids, { action: 'create', chat }, id);
    return chat;
  }

  async function update(
    t: Tenant,
    id: string,
    input: { title?: string; users?: { id: number }[] },
  ): Promise<Chat> {
    await requirePlan(t.companyId);
    const chat = await ownedChat(t, id);
    const before = (
      await db.select({ userId: chatUsers.userId }).from(chatUsers).where(eq(chatUsers.chatId, chat.id))
    ).map((r) => r.userId);
    const after = input.users ? await memberIds(t, chat.ownerId, input.users) : before;
    await db.transaction(async (tx) => {
      await tx
        .update(chats)
        .set({ ...(input.title !== undefined ? { title: input.title } : {}), updatedAt: new Date() })
        .where(eq(chats.id, chat.id));
      if (!input.users) return;
      const removed = before.filter((u) => !after.includes(u));
      const added = after.filter((u) => !before.includes(u));
      if (removed.length)
        await tx
          .delete(chatUsers)
          .where(and(eq(chatUsers.chatId, chat.id), inArray(chatUsers.userId, removed)));
      if (added.length)
        await tx.insert(chatUsers).values(added.map((userId) => ({ chatId: chat.id, userId })));
    });
    const view = (await viewOf(t.companyId, chat.id))!;
    announce(t.companyId, after, { action: 'update', chat: view }, chat.id);
    const gone = before.filter((u) => !after.includes(u));
    if (gone.length) announce(t.companyId, gone, { action: 'delete', chatId: chat.id }, chat.id);
    return view;
  }

  async function remove(t: Tenant, id: string) {
    await requirePlan(t.companyId);
    const chat = await ownedChat(t, id);
    const members = (
      await db.select({ userId: chatUsers.userId }).from(chatUsers).where(eq(chatUsers.chatId, chat.id))
    ).map((r) => r.userId);
    await db.delete(chats).where(eq(chats.id, chat.id));
    announce(t.companyId, members, { action: 'delete', chatId: chat.id }, chat.id);
    return { message: 'Chat deleted' };
  }

  const messageSelect = () =>
    db
      .select({ m: chatMessages, sender: { id: users.id, name: users.name } })
      .from(chatMessages)
      .innerJoin(users, eq(users.id, chatMessages.senderId));
  type MessageJoined = Awaited<ReturnType<ReturnType<typeof messageSelect>['execute']>>[number];
  const messageView = ({ m, sender }: MessageJoined): ChatMessage => ({
    id: m.id,
    chatId: m.chatId,
    senderId: m.senderId,
    sender,
    message: m.message,
    createdAt: m.createdAt.toISOString(),
  });

  /** Page 1 is the newest PAGE_SIZE messages; every page is in time order (oldest first). */
  async function messages(t: Tenant, id: string, pageNumber: number): Promise<ChatMessageList> {
    await requirePlan(t.companyId);
    const chat = await memberChat(t, id);
    const rows = await messageSelect()
      .where(eq(chatMessages.chatId, chat.id))
      .orderBy(desc(chatMessages.id))
      .limit(PAGE_SIZE + 1)
      .offset((pageNumber - 1) * PAGE_SIZE);
    return { records: rows.slice(0, PAGE_SIZE).reverse().map(messageView), hasMore: rows.length > PAGE_SIZE };
  }

  /**
   * Stores a message; in the same transaction every other member's unread counter grows by one and the
   * chat's last message and activity time change. Events and the `chat.message` domain event follow the commit.
   */
  async function send(t: Tenant, id: string, message: string): Promise<ChatMessage> {
    await requirePlan(t.companyId);
    const chat = await memberChat(t, id);
    const { messageId, members } = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(chatMessages)
        .values({ chatId: chat.id, senderId: t.userId, message })
        .returning({ id: chatMessages.id });
      await tx
        .update(chatUsers)
        .set({ unreads: sql`${chatUsers.unreads} + 1`, updatedAt: new Date() })
        .where(and(eq(chatUsers.chatId, chat.id), sql`${chatUsers.userId} <> ${t.userId}`));
      await tx
        .update(chats)
        .set({ lastMessage: truncate(message, 255), updatedAt: new Date() })
        .where(eq(chats.id, chat.id));
      const list = await tx
        .select({ userId: chatUsers.userId })
        .from(chatUsers)
        .where(eq(chatUsers.chatId, chat.id));
      return { messageId: row!.id, members: list.map((m) => m.userId) };
    });
    const [joined] = await messageSelect().where(eq(chatMessages.id, messageId));
    const newMessage = messageView(joined!);
    const view = await viewOf(t.companyId, chat.id);
    if (view) announce(t.companyId, members, { action: 'new-message', chat: view, newMessage }, chat.id);
    void deps.bus?.emit('chat.message', {
      companyId: t.companyId,
      chatId: chat.id,
      messageId,
      senderId: t.userId,
      recipientIds: members.filter((u) => u !== t.userId),
      title: chat.title,
      body: message,
    });
    return newMessage;
  }

  /** The caller's unread counter goes to 0; the caller's browsers hear the chat's new counters. */
  async function markRead(t: Tenant, id: string, userId?: number): Promise<Chat> {
    await requirePlan(t.companyId);
    if (userId !== undefined && userId !== t.userId)
      throw new AppError('ERR_NO_PERMISSION', 403, "Another user's chats cannot be marked read");
    const chat = await memberChat(t, id);
    await db
      .update(chatUsers)
      .set({ unreads: 0, updatedAt: new Date() })
      .where(and(eq(chatUsers.chatId, chat.id), eq(chatUsers.userId, t.userId)));
    const view = (await viewOf(t.companyId, chat.id))!;
    const members = view.users.map((u) => u.userId);
    announce(t.companyId, members, { action: 'update', chat: view }, chat.id);
    return view;
  }

  /** Socket room guard (realtime/room-policy): `chat-{id}` only for the chat's members. */
  async function isMember(t: Tenant, chatId: number): Promise<boolean> {
    try {
      await memberChat(t, chatId);
      return true;
    } catch {
      return false;
    }
  }

  return { requirePlan, list, get, create, update, remove, messages, send, markRead, isMember };
}
