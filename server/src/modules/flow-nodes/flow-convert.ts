import { and, asc, eq, sql } from 'drizzle-orm';
import { SETTING_DEFAULTS, botText, type FlowConvertInput, type FlowInput } from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { queueOptions, queues, whatsappQueues, whatsapps } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import { readSettings } from '../settings/setting-service.js';
import type { toFlow } from '../flows/flow-service.js';
import { botMenuToFlow, type BotMenu } from './bot-to-flow.js';

/**
 * The queue menu of a connection of the company, as the bot offers it (bot-service.ts loadContext): its
 * greeting, its queues in the bot's order with their option trees, and the settings the bot reads. Another
 * company's connection is answered as missing (404).
 */
export async function readBotMenu(db: Db, companyId: number, whatsappId: number) {
  const [connection] = await db
    .select()
    .from(whatsapps)
    .where(and(eq(whatsapps.id, whatsappId), eq(whatsapps.companyId, companyId)));
  if (!connection) throw new AppError('ERR_NO_WAPP_FOUND', 404);
  const rows = await db
    .select({ queue: queues })
    .from(whatsappQueues)
    .innerJoin(queues, eq(queues.id, whatsappQueues.queueId))
    .where(and(eq(whatsappQueues.whatsappId, whatsappId), eq(queues.companyId, companyId)))
    .orderBy(sql`${queues.orderQueue} asc nulls last`, asc(queues.name), asc(queues.id));
  const options = rows.length
    ? await db
        .select()
        .from(queueOptions)
        .where(
          and(
            eq(queueOptions.companyId, companyId),
            sql`${queueOptions.queueId} in (${sql.join(
              rows.map((r) => sql`${r.queue.id}`),
              sql`, `,
            )})`,
          ),
        )
    : [];
  const settings = Object.fromEntries((await readSettings(db, companyId)).map((s) => [s.key, s.value]));
  const menu: BotMenu = {
    greetingMessage: connection.greetingMessage,
    outOfHoursMessage: connection.outOfHoursMessage,
    queues: rows.map(({ queue: q }) => ({
      id: q.id,
      name: q.name,
      greetingMessage: q.greetingMessage,
      outOfHoursMessage: q.outOfHoursMessage,
      options: options
        .filter((o) => o.queueId === q.id)
        .map((o) => ({
          id: o.id,
          parentId: o.parentId,
          title: o.title,
          message: o.message,
          option: o.option,
        })),
    })),
    scheduleType: settings.scheduleType || SETTING_DEFAULTS.scheduleType,
    greetOneQueue: settings.sendGreetingMessageOneQueues === 'enabled',
    maxInvalidAnswers: connection.maxUseBotQueues,
    timeLimitMinutes: connection.timeUseBotQueues,
    texts: {
      invalidAnswer: botText(settings, 'botInvalidAnswer'),
      backLabel: botText(settings, 'botBackLabel'),
      outOfHours: botText(settings, 'botOutOfHours'),
    },
  };
  return { connection, menu, graph: botMenuToFlow(menu) };
}

/** What the conversion needs of the flows module: its create and publish, with their validation. */
export interface FlowWriter {
  create(t: Tenant, input: FlowInput): Promise<FlowView>;
  publish(t: Tenant, id: number): Promise<FlowView>;
}
type FlowView = ReturnType<typeof toFlow>;

/**
 * POST /flows/convert (docs/flows.md "From the queue menu"): the connection's queue menu as a new draft flow,
 * saved through the flows module (validated like any flow); with `assign`, published and set as the
 * connection's flow. The queues, options and the connection's bot are left as they are.
 */
export function flowConvertService(deps: { db: Db; flows: FlowWriter }) {
  const { db } = deps;
  return {
    async convert(t: Tenant, input: FlowConvertInput): Promise<FlowView> {
      const { connection, graph } = await readBotMenu(db, t.companyId, input.whatsappId);
      const name = (input.name ?? `${connection.name}: menu`).slice(0, 100);
      let flow = await deps.flows.create(t, {
        name: name.length >= 2 ? name : `${name} menu`,
        description: `Converted from the queue menu of ${connection.name}`.slice(0, 500),
        graph,
      });
      if (input.assign) {
        flow = await deps.flows.publish(t, flow.id);
        await db
          .update(whatsapps)
          .set({ flowId: flow.id, updatedAt: new Date() })
          .where(and(eq(whatsapps.id, connection.id), eq(whatsapps.companyId, t.companyId)));
      }
      return flow;
    },
  };
}
export type FlowConvertService = ReturnType<typeof flowConvertService>;
