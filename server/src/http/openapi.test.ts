import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, test } from 'vitest';
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
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['connectionToken', 'userToken']);
    expect(doc.paths['/api/auth/login'].post.security).toEqual([]);
    expect(doc.paths['/api/campaigns'].get.security).toEqual([{ userToken: [] }]);
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

  test("the reference UI is served under the app's security headers", async () => {
    const page = await t.request('GET', '/docs/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('swagger');
  });
});
