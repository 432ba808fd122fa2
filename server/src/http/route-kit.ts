import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParam, MessageAnswer } from '@recado/contracts';
import type { Access } from './access.js';
import type { Tenant } from './tenant.js';

/**
 * The route kit (docs/route-kit.md): one declaration for a resource's standard routes, so a module's routes
 * file is that declaration plus its special routes. Every route keeps its zod schemas (validation, the
 * response serializer and the OpenAPI document read them), its declared access and its service call.
 *
 * Routes, in this order (the route table lists them so): `GET base` (list), `GET base/list` (all),
 * the `collection` routes (static paths under base, before `/:id`), `GET base/:id` (show), `POST base`
 * (create, 201), `PUT base/:id` (update), `DELETE base/:id` (remove). Each is optional.
 */

type ZodApp = Parameters<FastifyPluginAsyncZod>[0];
type RouteConfig = { readonly access: Access };
type MaybePromise<T> = T | Promise<T>;
/** A schema when declared, else nothing (a route without a query string or body). */
type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;
type IdRequest = { tenant: Tenant; params: z.output<typeof IdParam> };

export interface ListRoute<Q extends z.ZodType | undefined, A extends z.ZodType> {
  /** The query string (pagination, search). */
  query?: Q;
  /** The answer: `hasMoreOf('tags', Tag)`, a page schema, or `z.array(View)`. */
  answer: A;
  access?: RouteConfig;
  run: (req: { tenant: Tenant; query: Parsed<Q> }) => MaybePromise<z.input<A>>;
}

export interface BodyRoute<B extends z.ZodType, P, A> {
  body: B;
  access?: RouteConfig;
  run: (req: P & { body: z.output<B> }) => MaybePromise<A>;
}

export interface ResourceRoutes<
  V extends z.ZodType,
  LQ extends z.ZodType | undefined,
  LA extends z.ZodType,
  AQ extends z.ZodType | undefined,
  AA extends z.ZodType,
  CB extends z.ZodType,
  UB extends z.ZodType,
> {
  /** The collection's path: `/tags`. */
  base: string;
  /** One record as answered by show, create and update. */
  view: V;
  /** Access of the reading routes (list, all, show) unless a route says otherwise. */
  read: RouteConfig;
  /** Access of the writing routes (create, update, remove) unless a route says otherwise. */
  write: RouteConfig;
  list?: ListRoute<LQ, LA>;
  /** `GET base/list` (or `path`): every record, for pickers. */
  all?: ListRoute<AQ, AA> & { path?: string };
  /** Static routes under `base` registered before `base/:id` (kept where the route table lists them). */
  collection?: (app: ZodApp) => void;
  show?: { access?: RouteConfig; run: (req: IdRequest) => MaybePromise<z.input<V>> };
  create?: BodyRoute<CB, { tenant: Tenant }, z.input<V>>;
  update?: BodyRoute<UB, IdRequest, z.input<V>>;
  remove?: { access?: RouteConfig; run: (req: IdRequest) => MaybePromise<z.input<typeof MessageAnswer>> };
}

type Handler = (req: never) => unknown;

/** Declares the resource's standard routes on `app` (inside a FastifyPluginAsyncZod). */
export function resourceRoutes<
  V extends z.ZodType,
  LQ extends z.ZodType | undefined = undefined,
  LA extends z.ZodType = z.ZodType,
  AQ extends z.ZodType | undefined = undefined,
  AA extends z.ZodType = z.ZodType,
  CB extends z.ZodType = z.ZodType,
  UB extends z.ZodType = z.ZodType,
>(app: ZodApp, r: ResourceRoutes<V, LQ, LA, AQ, AA, CB, UB>): void {
  // The handlers are typed by the declaration above; fastify sees the same schemas, so the casts are sound.
  const add = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    config: RouteConfig,
    schema: Record<string, unknown>,
    run: Handler,
    status = 200,
  ) =>
    app.route({
      method,
      url,
      config,
      schema,
      handler: async (req, reply) => {
        const answer = await (run as (req: unknown) => unknown)(req);
        return status === 200 ? answer : reply.status(status).send(answer);
      },
    });
  const { base, view } = r;
  if (r.list) {
    const { query, answer, access, run } = r.list;
    add(
      'GET',
      base,
      access ?? r.read,
      { response: { 200: answer }, ...(query && { querystring: query }) },
      run,
    );
  }
  if (r.all) {
    const { query, answer, access, run, path = '/list' } = r.all;
    add(
      'GET',
      base + path,
      access ?? r.read,
      { response: { 200: answer }, ...(query && { querystring: query }) },
      run,
    );
  }
  r.collection?.(app);
  if (r.show)
    add(
      'GET',
      `${base}/:id`,
      r.show.access ?? r.read,
      { response: { 200: view }, params: IdParam },
      r.show.run,
    );
  if (r.create) {
    const { body, access, run } = r.create;
    add('POST', base, access ?? r.write, { response: { 201: view }, body }, run, 201);
  }
  if (r.update) {
    const { body, access, run } = r.update;
    add('PUT', `${base}/:id`, access ?? r.write, { response: { 200: view }, params: IdParam, body }, run);
  }
  if (r.remove)
    add(
      'DELETE',
      `${base}/:id`,
      r.remove.access ?? r.write,
      { response: { 200: MessageAnswer }, params: IdParam },
      r.remove.run,
    );
}
