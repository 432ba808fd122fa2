import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Chat, ChatList, ChatMessage, ChatMessageList, MessageAnswer } from '@recado/contracts';
import { access } from '../../http/access.js';
import {
  ChatIdParam,
  ChatInput,
  ChatListQuery,
  ChatMessageInput,
  ChatMessagesQuery,
  ChatReadInput,
  ChatUpdate,
} from '@recado/contracts';
import type { ChatService } from './chat-service.js';

export const chatRoutes =
  (chats: ChatService): FastifyPluginAsyncZod =>
  async (app) => {
    // Plan flag useInternalChat: the service refuses every call with ERR_NO_PERMISSION without it.
    app.get(
      '/chats',
      {
        config: access.plan('useInternalChat'),
        schema: { response: { 200: ChatList }, querystring: ChatListQuery },
      },
      (req) => chats.list(req.tenant, req.query),
    );
    app.get(
      '/chats/:id',
      {
        config: access.plan('useInternalChat'),
        schema: { response: { 200: Chat }, params: ChatIdParam },
      },
      (req) => chats.get(req.tenant, req.params.id),
    );
    app.post(
      '/chats',
      { config: access.plan('useInternalChat'), schema: { response: { 201: Chat }, body: ChatInput } },
      async (req, reply) => reply.status(201).send(await chats.create(req.tenant, req.body)),
    );
    app.put(
      '/chats/:id',
      {
        config: access.plan('useInternalChat'),
        schema: { response: { 200: Chat }, params: ChatIdParam, body: ChatUpdate },
      },
      (req) => chats.update(req.tenant, req.params.id, req.body),
    );
    app.delete(
      '/chats/:id',
      {
        config: access.plan('useInternalChat'),
        schema: { response: { 200: MessageAnswer }, params: ChatIdParam },
      },
      (req) => chats.remove(req.tenant, req.params.id),
    );
    app.get(
      '/chats/:id/messages',
      {
        config: access.plan('useInternalChat'),
        schema: { response: { 200: ChatMessageList }, params: ChatIdParam, querystring: ChatMessagesQuery },
      },
      (req) => chats.messages(req.tenant, req.params.id, req.query.pageNumber),
    );
    app.post(
      '/chats/:id/messages',
      {
        config: access.plan('useInternalChat'),
        schema: { response: { 201: ChatMessage }, params: ChatIdParam, body: ChatMessageInput },
      },
      async (req, reply) =>
        reply.status(201).send(await chats.send(req.tenant, req.params.id, req.body.message)),
    );
    app.post(
      '/chats/:id/read',
      {
        config: access.plan('useInternalChat'),
        schema: { response: { 200: Chat }, params: ChatIdParam, body: ChatReadInput },
      },
      (req) => chats.markRead(req.tenant, req.params.id, req.body?.userId),
    );
  };
