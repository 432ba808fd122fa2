import { afterAll, afterEach, expect, test } from 'vitest';
import { DEFAULT_GRAPH_BASE_URL, DEFAULT_GRAPH_API_VERSION } from './cloud-api-config.js';
import { startFakeGraph } from './fake-graph-api.js';
import { graphClient, setOperatorGraphUrl } from './graph-client.js';

/**
 * CLOUD_API_GRAPH_URL (docs/cloud-api.md): the operator's Graph endpoint takes the calls of connections left
 * on Meta's default URL, private address or not; a tenant's own URL is still guarded.
 */
const graph = await startFakeGraph();
afterAll(() => graph.close());
afterEach(() => setOperatorGraphUrl(undefined));

const client = (graphBaseUrl: string) =>
  graphClient({
    graphBaseUrl,
    apiVersion: DEFAULT_GRAPH_API_VERSION,
    phoneNumberId: graph.phoneNumberId,
    accessToken: graph.token,
    allowPrivate: false,
  });

test("connections on Meta's default URL go to the operator's endpoint", async () => {
  setOperatorGraphUrl(`${graph.url}/`);
  const phone = await client(DEFAULT_GRAPH_BASE_URL).phoneNumber();
  expect(phone.id).toBe(graph.phoneNumberId);
});

test("a tenant's own private URL is still refused, operator endpoint or not", async () => {
  setOperatorGraphUrl(graph.url);
  await expect(client(graph.url).phoneNumber()).rejects.toMatchObject({ refused: true });
});
