import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, test } from 'vitest';
import { WEBHOOK_EVENTS } from '@recado/contracts';
import { testApp } from '../../test/helpers.js';
import { routeTable } from './access.js';

const t = await testApp();
const doc = await (await t.request('GET', '/openapi.json')).json();

/** Fastify's `/tickets/:id` is OpenAPI's `/tickets/{id}`. */
const asOpenApi = (url: string) => url.replace(/:(\w+)/g, '{$1}');
/** The routes the document covers: all but its own UI's files (hidden on purpose). */
const documented = () => routeTable(t.app.app).filter((r) => !(r.schema as { hide?: boolean })?.hide);

describe('OpenAPI document', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test('every registered route appears in it, with its security scheme', () => {
    const missing = documented().filter((r) => !doc.paths?.[asOpenApi(r.url)]?.[r.method.toLowerCase()]);
    expect(
      missing.map((r) => `${r.method} ${r.url}`),
      'routes missing from /api/openapi.json',
    ).toEqual([]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'apiToken',
      'connectionToken',
      'userToken',
    ]);
    expect(doc.paths['/api/auth/login'].post.security).toEqual([]);
    expect(doc.paths['/api/campaigns'].get.security).toEqual([{ userToken: [] }, { apiToken: [] }]);
    expect(doc.paths['/api/campaigns'].get.description).toContain('Access: user + useCampaigns.');
  });

  test('every route declares a 2xx response schema (and the document shows request shapes and ERR_* codes)', () => {
    const without = documented().filter((r) => {
      const response = (r.schema as { response?: Record<string, unknown> } | undefined)?.response ?? {};
      return !Object.keys(response).some((code) => /^2\d\d$|^2XX$/.test(code));
    });
    expect(
      without.map((r) => `${r.method} ${r.url}`),
      'these routes declare no 2xx response in schema.response (contracts/src/responses.ts)',
    ).toEqual([]);
    const login = doc.paths['/api/auth/login'].post;
    expect(login.requestBody.content['application/json'].schema.properties).toHaveProperty('email');
    const errors = JSON.stringify(doc.paths['/api/tickets/{id}'].get.responses['4XX']);
    expect(errors + JSON.stringify(doc.components.schemas ?? {})).toContain('ERR_NO_PERMISSION');
  });

  test('every operation that takes a body documents it (multipart ones too), and the others say they take none', () => {
    const bodyMethods = new Set(['POST', 'PUT', 'PATCH']);
    const schemaOf = (r: { schema?: unknown }) => (r.schema ?? {}) as { noBody?: true };
    const undocumented = documented()
      .filter((r) => bodyMethods.has(r.method))
      .filter((r) => !schemaOf(r).noBody && !doc.paths[asOpenApi(r.url)][r.method.toLowerCase()].requestBody);
    expect(
      undocumented.map((r) => `${r.method} ${r.url}`),
      'declare schema.body, schema.documentedBody (multipart or parsed by hand) or schema.noBody',
    ).toEqual([]);
    // A route that says it takes none has none documented.
    const contradictory = documented().filter(
      (r) => schemaOf(r).noBody && doc.paths[asOpenApi(r.url)][r.method.toLowerCase()].requestBody,
    );
    expect(contradictory.map((r) => `${r.method} ${r.url}`)).toEqual([]);

    const content = (path: string, method = 'post') => doc.paths[path][method].requestBody.content;
    // The external send: JSON from ApiSendInput, or form data with the files.
    const send = content('/api/messages/send');
    expect(send['application/json'].schema.properties).toHaveProperty('externalKey');
    const form = send['multipart/form-data'].schema;
    expect(form.properties.number).toBeTruthy();
    expect(form.properties.medias).toMatchObject({
      type: 'array',
      items: { type: 'string', format: 'binary' },
    });
    // The attendant's send, a template included.
    const reply = content('/api/messages/{ticketId}');
    expect(JSON.stringify(reply['application/json'].schema.properties.template)).toContain('name');
    expect(reply['multipart/form-data'].schema.properties.medias.type).toBe('array');
    for (const path of [
      '/api/contact-lists/{id}/upload',
      '/api/files/uploadList/{id}',
      '/api/campaigns/{id}/media-upload',
      '/api/quick-messages/{id}/media-upload',
      '/api/schedules/{id}/media-upload',
      '/api/announcements/{id}/media-upload',
    ])
      expect(content(path)['multipart/form-data'].schema.properties.file, path).toMatchObject({
        format: 'binary',
      });
    expect(
      content('/api/webhooks/cloud-api/{whatsappId}')['application/json'].schema.properties,
    ).toHaveProperty('entry');
  });

  test('every outgoing webhook event documents its payload (OpenAPI 3.1 webhooks)', () => {
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...WEBHOOK_EVENTS].sort());
    for (const event of WEBHOOK_EVENTS) {
      const op = doc.webhooks[event].post;
      const schema = op.requestBody.content['application/json'].schema;
      expect(schema.properties.event, event).toEqual({ type: 'string', const: event });
      expect(Object.keys(schema.properties), event).toEqual(
        expect.arrayContaining(['id', 'event', 'companyId', 'createdAt', 'data']),
      );
      expect(schema.properties.data.properties, event).toBeTruthy();
      expect(op.parameters.map((p: { name: string }) => p.name)).toContain('X-Recado-Signature');
    }
    expect(
      JSON.stringify(doc.webhooks['message.created'].post.requestBody.content['application/json'].schema),
    ).toContain('#/components/schemas/WebhookMessage');
  });

  test('a client generator can use it: every $ref resolves, every operation has a unique operationId', () => {
    const refs: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, child] of Object.entries(v)) {
          if (k === '$ref' && typeof child === 'string') refs.push(child);
          else walk(child);
        }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(50);
    const resolve = (ref: string) =>
      ref.startsWith('#/')
        ? ref
            .slice(2)
            .split('/')
            .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
            .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc)
        : undefined;
    expect([...new Set(refs.filter((r) => resolve(r) === undefined))], 'unresolved $refs').toEqual([]);

    const operations = [
      ...Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>),
      ...Object.values(doc.webhooks as Record<string, Record<string, { operationId?: string }>>),
    ].flatMap((ops) => Object.values(ops));
    const ids = operations.map((op) => op.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      'duplicate operationIds',
    ).toEqual([]);
    expect(doc.paths['/api/messages/{ticketId}'].post.operationId).toBe('postMessagesByTicketId');
  });

  test("the reference UI is served under the app's security headers", async () => {
    const page = await t.request('GET', '/docs/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('swagger');
    // Without the trailing slash its files are named by absolute path, under /api (not the SPA's /docs).
    const bare = await (await t.request('GET', '/docs')).text();
    const files = [...bare.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      expect(file).toMatch(/^\/api\/docs\/static\//);
      const res = await t.request('GET', file.replace(/^\/api/, ''));
      expect(res.status, file).toBe(200);
      expect(res.headers.get('content-type'), file).not.toContain('text/html');
      await res.arrayBuffer();
    }
  });
});
