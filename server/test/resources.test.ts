import { describe, expect, test } from 'vitest';
import { RESOURCES, companyEvent, type ResourceName } from '@recado/contracts';
import { nextEvent, testApp, unique } from './helpers.js';

/**
 * The web's resource kit reads list answers and events by the names in contracts' RESOURCES: each
 * resource's list answer holds its records under `listField`, its create event carries the record under
 * `recordField` and its delete event the id under `deleteIdField`, on `company-{id}-{entity}`.
 */
const t = await testApp();

describe('resources answer and emit under the names contracts declare', async () => {
  const c = await t.company('Kit');
  const api = t.as(c.admin);
  // Announcements are the platform's: the super user writes them, every company hears them.
  const platform = t.as(await t.superuser());
  const writerOf = (name: ResourceName) => (name === 'announcement' ? platform : api);
  const created = async (path: string, body: Record<string, unknown>, writer = api) => {
    const res = await writer.post(path, body);
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as { id: number };
  };
  const queue = await created('/queue', { name: unique('Fila '), color: '#00AA01' });
  const bodies: Record<ResourceName, () => Record<string, unknown>> = {
    tag: () => ({ name: unique('Tag ') }),
    quickMessage: () => ({ shortcode: unique('kit'), message: 'Olá, tudo bem?' }),
    macro: () => ({ name: unique('Macro '), actions: [{ type: 'set_priority', priority: 2 }] }),
    fileList: () => ({ name: unique('Arquivos '), message: 'Veja os anexos' }),
    prompt: () => ({
      name: unique('Assistente '),
      prompt: 'Você é um assistente de atendimento da empresa. Responda com educação e de forma breve.',
      model: 'gpt-3.5-turbo-1106',
      maxTokens: 100,
      temperature: 1,
      apiKey: 'sk-test-kit-0123456789',
      queueId: queue.id,
      maxMessages: 10,
    }),
    queueIntegration: () => ({
      type: 'typebot',
      name: unique('Typebot '),
      urlN8N: 'https://typebot.example.com',
      typebotSlug: 'my-flow',
    }),
    contactList: () => ({ name: unique('Lista ') }),
    user: () => ({
      name: 'Kit User',
      email: `${unique('kit')}@users.test`,
      password: 'User@123',
      profile: 'user',
    }),
    queue: () => ({ name: unique('Fila '), color: '#00AA02' }),
    campaign: () => ({ name: unique('Camp '), message1: 'Olá {nome}!' }),
    chat: () => ({ title: unique('Chat '), users: [{ id: c.admin.user.id, name: 'Kit Admin' }] }),
    announcement: () => ({ title: unique('Aviso '), text: 'Manutenção hoje às 22h' }),
    webhook: () => ({
      name: unique('ERP '),
      url: 'https://erp.example.com/kit',
      events: ['campaign.finished'],
    }),
  };

  for (const name of Object.keys(RESOURCES) as ResourceName[]) {
    const spec = RESOURCES[name];
    test(`${name}: ${spec.path}`, async () => {
      const socket = await t.socket(c.admin.token);
      const event = companyEvent(c.id, spec.entity);
      const onCreate = nextEvent<Record<string, { id: number }>>(socket, event);
      const record = await created(spec.path, bodies[name](), writerOf(name));
      expect((await onCreate)[spec.recordField]?.id).toBe(record.id);

      const list = await api.get(spec.path);
      expect(list.status).toBe(200);
      const answer = (await list.json()) as Record<string, { id: number }[]> | { id: number }[];
      const rows = spec.listField ? (answer as Record<string, { id: number }[]>)[spec.listField] : answer;
      expect(Array.isArray(rows)).toBe(true);
      expect((rows as { id: number }[]).some((r) => r.id === record.id)).toBe(true);

      const onDelete = nextEvent<Record<string, unknown>>(socket, event);
      expect((await writerOf(name).del(`${spec.path}/${record.id}`)).status).toBe(200);
      const deleted = await onDelete;
      expect(deleted.action).toBe('delete');
      expect(Number(deleted[spec.deleteIdField])).toBe(record.id);
      socket.disconnect();
    });
  }
});
