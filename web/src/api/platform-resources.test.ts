import { afterEach, describe, expect, test, vi } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { Help, Plan } from '@recado/contracts';
import { helpKeys, helpResource } from './helps.js';
import { planKeys, planResource } from './plans.js';

/** The platform's plans and helps (super user's settings tabs) as resources the server sends no event for. */

const plan = (id: number, name = `P${id}`) => ({ id, name }) as Plan;
const help = (id: number, title: string) => ({ id, title, description: '', video: '' }) as Help;

afterEach(() => vi.unstubAllGlobals());

describe('plans and helps resources', () => {
  test('plans are read from /plans/all and written through /plans; helps through /helps', async () => {
    const urls: string[] = [];
    vi.stubGlobal('window', { location: { origin: 'http://localhost' } });
    vi.stubGlobal('localStorage', { getItem: () => null });
    vi.stubGlobal('fetch', async (url: string) => {
      urls.push(url);
      return new Response(JSON.stringify(url.includes('plans') ? [plan(1)] : [help(1, 'a')]), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    });
    expect(await planResource.fetchAll()).toEqual([plan(1)]);
    expect(await helpResource.fetchAll()).toEqual([help(1, 'a')]);
    expect(urls).toEqual(['/api/plans/all', '/api/helps']);
    expect(planResource.spec.path).toBe('/plans');
  });

  test('a saved plan takes its place by id; a saved help by title; a deleted one leaves', () => {
    const client = new QueryClient();
    client.setQueryData(planKeys.admin(), [plan(1), plan(3)]);
    planResource.put(client, plan(2));
    planResource.put(client, plan(3, 'Renamed'));
    expect(client.getQueryData<Plan[]>(planKeys.admin())!.map((p) => [p.id, p.name])).toEqual([
      [1, 'P1'],
      [2, 'P2'],
      [3, 'Renamed'],
    ]);
    planResource.drop(client, 1);
    expect(client.getQueryData<Plan[]>(planKeys.admin())!.map((p) => p.id)).toEqual([2, 3]);

    client.setQueryData(helpKeys.all, [help(1, 'Beta'), help(2, 'Gama')]);
    helpResource.put(client, help(3, 'Alfa'));
    helpResource.put(client, help(2, 'Ômega'));
    expect(client.getQueryData<Help[]>(helpKeys.all)!.map((h) => h.title)).toEqual(['Alfa', 'Beta', 'Ômega']);
    helpResource.drop(client, 3);
    expect(client.getQueryData<Help[]>(helpKeys.all)!.map((h) => h.id)).toEqual([1, 2]);
  });
});
