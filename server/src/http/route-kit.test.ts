import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { access, describeAccess, type Access } from './access.js';
import { resourceRoutes } from './route-kit.js';
import type { Tenant } from './tenant.js';

const Note = z.object({ id: z.number(), text: z.string() });
const NoteInput = z.object({ text: z.string().min(2) });
const NoteQuery = z.object({ searchParam: z.string().default('') });

/** A resource on the kit with an in-memory store: what each declared route gets and answers. */
function notesApp(declare: 'all' | 'some') {
  const notes = new Map<number, { id: number; text: string }>();
  const seen: { tenant?: Tenant; query?: unknown }[] = [];
  const routes: { method: string; url: string; access?: Access; body: boolean }[] = [];
  const full = declare === 'all';
  const plugin: FastifyPluginAsyncZod = async (app) => {
    resourceRoutes(app, {
      base: '/notes',
      view: Note,
      read: access.user,
      write: access.admin,
      list: {
        query: NoteQuery,
        answer: z.object({ notes: z.array(Note), hasMore: z.boolean() }),
        run: (req) => {
          seen.push({ tenant: req.tenant, query: req.query });
          const notesFound = [...notes.values()].filter((n) => n.text.includes(req.query.searchParam));
          return { notes: notesFound, hasMore: false };
        },
      },
      all: full
        ? { path: '/all', access: access.super, answer: z.array(Note), run: () => [...notes.values()] }
        : undefined,
      collection: full
        ? (app) => {
            app.get('/notes/count', { config: access.user }, () => ({ count: notes.size }));
          }
        : undefined,
      update: full
        ? {
            body: NoteInput,
            run: (req) => {
              const note = { id: req.params.id, text: req.body.text };
              notes.set(note.id, note);
              return note;
            },
          }
        : undefined,
      remove: full ? { run: (req) => (notes.delete(req.params.id), { message: 'deleted' }) } : undefined,
      show: { run: (req) => notes.get(req.params.id) ?? { id: 0, text: '' } },
      create: {
        body: NoteInput,
        run: (req) => {
          const note = { id: notes.size + 1, text: req.body.text };
          notes.set(note.id, note);
          return note;
        },
      },
    });
  };
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRoute', (r) => {
    if (r.method === 'HEAD') return;
    routes.push({
      method: String(r.method),
      url: r.url,
      access: r.config?.access,
      body: Boolean(r.schema?.body),
    });
  });
  app.decorateRequest('tenant', null as unknown as Tenant);
  app.addHook('onRequest', async (req) => {
    req.tenant = { companyId: 7 } as Tenant;
  });
  void app.register(plugin);
  return { app, routes, seen };
}

describe('route kit', () => {
  test('declares the standard routes in order, with read/write access, per-route overrides and body schemas', async () => {
    const { app, routes } = notesApp('all');
    await app.ready();
    expect(
      routes.map((r) => `${r.method} ${r.url} ${describeAccess(r.access)}${r.body ? ' body' : ''}`),
    ).toEqual([
      'GET /notes user',
      'GET /notes/all super',
      'GET /notes/count user',
      'GET /notes/:id user',
      'POST /notes admin body',
      'PUT /notes/:id admin body',
      'DELETE /notes/:id admin',
    ]);
  });

  test('only what is declared is registered', async () => {
    const { app, routes } = notesApp('some');
    await app.ready();
    expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /notes',
      'GET /notes/:id',
      'POST /notes',
    ]);
    expect((await app.inject({ method: 'DELETE', url: '/notes/1' })).statusCode).toBe(404);
  });

  test('the service call gets the tenant, the parsed query, params and body; create answers 201', async () => {
    const { app, seen } = notesApp('all');
    const created = await app.inject({ method: 'POST', url: '/notes', payload: { text: 'olá' } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ id: 1, text: 'olá' });
    expect((await app.inject({ method: 'POST', url: '/notes', payload: { text: 'x' } })).statusCode).toBe(
      400,
    );
    expect((await app.inject({ method: 'GET', url: '/notes/abc' })).statusCode).toBe(400);
    const updated = await app.inject({ method: 'PUT', url: '/notes/1', payload: { text: 'tchau' } });
    expect(updated.json()).toEqual({ id: 1, text: 'tchau' });
    const list = await app.inject({ method: 'GET', url: '/notes?searchParam=tch' });
    expect(list.json()).toEqual({ notes: [{ id: 1, text: 'tchau' }], hasMore: false });
    expect(seen).toEqual([{ tenant: { companyId: 7 }, query: { searchParam: 'tch' } }]);
    expect((await app.inject({ method: 'DELETE', url: '/notes/1' })).json()).toEqual({ message: 'deleted' });
    expect((await app.inject({ method: 'GET', url: '/notes' })).json()).toEqual({
      notes: [],
      hasMore: false,
    });
  });
});
