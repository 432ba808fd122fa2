import { afterAll, expect, test } from 'vitest';
import { DEFAULT_GRAPH_BASE_URL, DEFAULT_GRAPH_API_VERSION } from './cloud-api-config.js';
import { startFakeGraph } from './fake-graph-api.js';
import { graphClient } from './graph-client.js';

/**
 * CLOUD_API_GRAPH_URL (docs/cloud-api.md): the operator's Graph endpoint takes the calls of connections left
 * on Meta's default URL, private address or not; a tenant's own URL is still guarded.
 */
const graph = await startFakeGraph();
afterAll(() => graph.close());

const client = (graphBaseUrl: string, operatorGraphUrl?: string) =>
  graphClient({
    graphBaseUrl,
    apiVersion: DEFAULT_GRAPH_API_VERSION,
    phoneNumberId: graph.phoneNumberId,
    accessToken: graph.token,
    allowPrivate: false,
    operatorGraphUrl,
  });

test("connections on Meta's default URL go to the operator's endpoint", async () => {
  const phone = await client(DEFAULT_GRAPH_BASE_URL, `${graph.url}/`).phoneNumber();
  expect(phone.id).toBe(graph.phoneNumberId);
});

test("a tenant's own private URL is still refused, operator endpoint or not", async () => {
  await expect(client(graph.url, graph.url).phoneNumber()).rejects.toMatchObject({ refused: true });
});
