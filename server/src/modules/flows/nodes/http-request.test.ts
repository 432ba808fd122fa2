import { afterAll, describe, expect, test } from 'vitest';
import type { FlowNodeOf } from '@recado/contracts';
import { HttpNodeData } from '@recado/contracts';
import { fakeCustomerApi } from '../../../../test/fake-customer-api.js';
import { parseJsonPath, readJsonPath } from './json-path.js';
import { renderUrl, runHttpRequest } from './http-request.js';

const api = await fakeCustomerApi({
  customers: { '52998224725': { name: 'Ana Souza', plan: 'premium', since: '2019' } },
});
afterAll(() => api.close());

const node = (d: Record<string, unknown>): FlowNodeOf<'http'>['data'] => HttpNodeData.parse(d);
const vars = (v: Record<string, string>) => (name: string) => v[name];

describe('JSON paths of the response mapping', () => {
  test('dots, indexes, quoted keys and an optional $', () => {
    const data = { customer: { name: 'Ana', 'first name': 'A' }, items: [{ id: 7 }, { id: 8 }], ok: true };
    expect(readJsonPath(data, 'customer.name')).toBe('Ana');
    expect(readJsonPath(data, '$.customer.name')).toBe('Ana');
    expect(readJsonPath(data, 'items.1.id')).toBe(8);
    expect(readJsonPath(data, '$.items[0].id')).toBe(7);
    expect(readJsonPath(data, '$["customer"]["first name"]')).toBe('A');
    expect(readJsonPath(data, '$')).toEqual(data);
    expect(readJsonPath(data, 'customer.missing')).toBeUndefined();
    expect(readJsonPath(data, 'items.x')).toBeUndefined();
    expect(readJsonPath(data, 'customer.name.length')).toBeUndefined();
    // No prototype walking.
    expect(readJsonPath(data, 'customer.constructor')).toBeUndefined();
    expect(parseJsonPath('a..b')).toBeNull();
    expect(parseJsonPath('a[x]')).toBeNull();
  });
});

describe('the HTTP node', () => {
  test('a URL value cannot add a parameter or change the host; a whole-URL variable is taken as is', () => {
    const v = vars({ cpf: '1&admin=1', host: 'evil.example', url: 'https://api.example/x?a=1' });
    expect(renderUrl('https://api.example/customers/{{cpf}}?q={{cpf}}', v)).toBe(
      'https://api.example/customers/1%26admin%3D1?q=1%26admin%3D1',
    );
    expect(renderUrl('https://{{host}}/a', v)).toBe('https://evil.example/a');
    expect(renderUrl('{{url}}', v)).toBe('https://api.example/x?a=1');
  });

  test('GET with variables: the JSON fields go into variables, the status too', async () => {
    const out = await runHttpRequest(
      node({
        url: `${api.url}/customers/{{cpf}}`,
        headers: [{ name: 'Authorization', value: 'Bearer {{token}}' }],
        responseMap: [
          { path: 'customer.name', variable: 'crmName' },
          { path: '$.customer.plan', variable: 'plan' },
          { path: 'customer', variable: 'raw' },
          { path: 'customer.nothing', variable: 'none' },
        ],
        statusVariable: 'status',
      }),
      vars({ cpf: '52998224725', token: 's3cret' }),
      { allowPrivateUrls: true },
    );
    expect(out).toMatchObject({ exit: 'success', status: 200 });
    expect(out.variables).toEqual({
      crmName: 'Ana Souza',
      plan: 'premium',
      raw: JSON.stringify({ name: 'Ana Souza', plan: 'premium', since: '2019' }),
      none: '',
      status: '200',
    });
    const seen = api.requests.at(-1)!;
    expect(seen).toMatchObject({ method: 'GET', path: '/customers/52998224725' });
    expect(seen.headers.authorization).toBe('Bearer s3cret');
  });

  test('a JSON body gets its values escaped as JSON; a non-2xx answer is the error exit', async () => {
    const out = await runHttpRequest(
      node({
        method: 'POST',
        url: `${api.url}/customers/00000000000`,
        body: '{"name": "{{name}}", "note": "{{note}}"}',
        statusVariable: 'status',
      }),
      vars({ name: 'Ana "A" \\ Souza', note: 'line1\nline2' }),
      { allowPrivateUrls: true },
    );
    expect(out).toMatchObject({
      exit: 'error',
      status: 404,
      error: 'HTTP 404',
      variables: { status: '404' },
    });
    const seen = api.requests.at(-1)!;
    expect(seen.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen.body)).toEqual({ name: 'Ana "A" \\ Souza', note: 'line1\nline2' });
  });

  test('loopback is refused without ALLOW_PRIVATE_URLS: nothing reaches the server', async () => {
    const before = api.requests.length;
    for (const url of [
      `${api.url}/customers/1`,
      `http://localhost:${api.port}/x`,
      'http://169.254.169.254/',
    ]) {
      const out = await runHttpRequest(node({ url }), vars({}), { allowPrivateUrls: false });
      expect(out.exit).toBe('error');
      expect(out.error).toMatch(/^URL not allowed/);
    }
    // Cloud metadata stays refused even with the allowance.
    const meta = await runHttpRequest(node({ url: 'http://169.254.169.254/latest' }), vars({}), {
      allowPrivateUrls: true,
    });
    expect(meta.error).toMatch(/^URL not allowed/);
    expect(api.requests.length).toBe(before);
  });

  test('the timeout and an answer that is not JSON are the error exit', async () => {
    api.setDelay(1500);
    try {
      const slow = await runHttpRequest(node({ url: `${api.url}/slow`, timeoutSeconds: 1 }), vars({}), {
        allowPrivateUrls: true,
      });
      expect(slow).toMatchObject({ exit: 'error', error: 'no answer in 1 s' });
    } finally {
      api.setDelay(0);
    }
    api.setReply(() => ({ status: 200, body: '<html>', type: 'text/html' }));
    try {
      const html = await runHttpRequest(
        node({ url: `${api.url}/page`, responseMap: [{ path: 'a', variable: 'a' }] }),
        vars({}),
        { allowPrivateUrls: true },
      );
      expect(html).toMatchObject({ exit: 'error', error: 'the answer is not JSON' });
    } finally {
      api.setReply(null);
    }
  });
});
