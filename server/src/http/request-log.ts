import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Development log of a request, one line: `GET /api/tickets 200 12 ms`. The query string is left out
 * (it can carry search text or tokens); the web client's files are logged only when they fail.
 */
export async function briefRequestLog(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const path = req.url.split('?')[0]!;
  const status = reply.statusCode;
  if (status < 400 && !path.startsWith('/api/')) return;
  const line = `${req.method} ${path} ${status} ${Math.round(reply.elapsedTime)} ms`;
  if (status >= 500) req.log.error(line);
  else req.log.info(line);
}
