import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MessageView, ReactionInput } from '@recado/contracts';
import { access } from '../../http/access.js';
import type { ReactionService } from './reaction-service.js';

export const reactionRoutes =
  (service: ReactionService): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/messages/:messageId/reactions',
      {
        config: access.user,
        schema: {
          params: z.object({ messageId: z.coerce.number().int().positive() }),
          body: ReactionInput,
          response: { 200: MessageView },
        },
      },
      (req) => service.react(req.tenant, req.params.messageId, req.body),
    );
  };
