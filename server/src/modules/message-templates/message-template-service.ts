import { and, asc, eq, sql } from 'drizzle-orm';
import {
  renderTemplate,
  templateNeeds,
  type MessageTemplate,
  type TemplateSendInput,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { messageTemplates, whatsapps, type TemplateComponent } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { SecretBox } from '../../lib/crypto.js';
import { defineJob, noPayload } from '../../jobs/job-queue.js';
import type { TemplateSend } from '../../messaging/channel.js';
import { CloudConfigError, openCloudConfig } from '../../messaging/channels/cloud-api/cloud-api-config.js';
import { graphClient, type GraphTemplate } from '../../messaging/channels/cloud-api/graph-client.js';

type Row = typeof messageTemplates.$inferSelect;

/** Meta lists at most 100 a page; a business account with more than 5 000 templates is not real. */
const MAX_PAGES = 50;
const DAY = 24 * 60 * 60 * 1000;

const view = (r: Row): MessageTemplate => ({
  id: r.id,
  whatsappId: r.whatsappId,
  name: r.name,
  language: r.language,
  category: r.category,
  status: r.status,
  components: r.components,
  usable: r.status === 'APPROVED',
  syncedAt: r.syncedAt.toISOString(),
});

const components = (t: GraphTemplate): TemplateComponent[] =>
  (t.components ?? [])
    .filter((c) => c && typeof c.type === 'string')
    .map((c) => ({
      type: c.type.toUpperCase(),
      ...(typeof c.format === 'string' ? { format: c.format.toUpperCase() } : {}),
      ...(typeof c.text === 'string' ? { text: c.text } : {}),
      ...(Array.isArray(c.buttons) ? { buttons: c.buttons as TemplateComponent['buttons'] } : {}),
    }));

/** A connection's stored template by name and language, of this company; null when Meta never listed it. */
export async function storedTemplate(
  db: Db,
  companyId: number,
  whatsappId: number,
  t: { name: string; language: string },
): Promise<typeof messageTemplates.$inferSelect | null> {
  const [row] = await db
    .select()
    .from(messageTemplates)
    .where(
      and(
        eq(messageTemplates.companyId, companyId),
        eq(messageTemplates.whatsappId, whatsappId),
        eq(messageTemplates.name, t.name),
        eq(messageTemplates.language, t.language),
      ),
    );
  return row ?? null;
}

/**
 * Checks values against a stored template (approved, exactly the values it asks for) and answers Graph's
 * `template` object with the text the message is stored with. Shared by ticket sends and campaigns.
 */
export function templateSendOf(
  row: Pick<Row, 'name' | 'language' | 'status' | 'components'>,
  input: Pick<TemplateSendInput, 'variables' | 'headerVariables' | 'headerMediaUrl'>,
): { template: TemplateSend; body: string } {
  if (row.status !== 'APPROVED')
    throw new AppError('ERR_TEMPLATE_NOT_APPROVED', 400, `Template ${row.name} is ${row.status}`);
  const needs = templateNeeds(row.components);
  if (input.variables.length !== needs.body || input.headerVariables.length !== needs.header)
    throw new AppError(
      'ERR_TEMPLATE_VARIABLES',
      400,
      `Template ${row.name} takes ${needs.body} body and ${needs.header} header values`,
      { body: needs.body, header: needs.header },
    );
  if (needs.headerMedia && !input.headerMediaUrl)
    throw new AppError(
      'ERR_TEMPLATE_VARIABLES',
      400,
      `Template ${row.name} needs a header ${needs.headerMedia}`,
    );
  const parts: NonNullable<TemplateSend['components']> = [];
  if (needs.header)
    parts.push({
      type: 'header',
      parameters: input.headerVariables.map((text) => ({ type: 'text', text })),
    });
  else if (needs.headerMedia && input.headerMediaUrl)
    parts.push({
      type: 'header',
      parameters: [{ type: needs.headerMedia, [needs.headerMedia]: { link: input.headerMediaUrl } }],
    });
  if (needs.body)
    parts.push({ type: 'body', parameters: input.variables.map((text) => ({ type: 'text', text })) });
  return {
    template: {
      name: row.name,
      language: { code: row.language },
      ...(parts.length ? { components: parts } : {}),
    },
    body: renderTemplate(row.components, input),
  };
}

/**
 * WhatsApp Cloud API message templates of each connection (docs/cloud-api.md): synced from the Graph API
 * on demand and daily, listed for pickers, and turned into Graph's `template` object for a send.
 */
export function messageTemplateService(deps: {
  db: Db;
  box: SecretBox;
  allowPrivateUrls?: boolean;
  /** CLOUD_API_GRAPH_URL (graph-client.ts). */
  operatorGraphUrl?: string;
  log: { warn(o: object, m: string): void };
}) {
  const { db } = deps;

  async function connection(companyId: number, whatsappId: number) {
    const [w] = await db
      .select({ id: whatsapps.id, channel: whatsapps.channel, channelConfig: whatsapps.channelConfig })
      .from(whatsapps)
      .where(and(eq(whatsapps.id, whatsappId), eq(whatsapps.companyId, companyId)));
    if (!w) throw new AppError('ERR_NO_WAPP_FOUND', 404);
    return w;
  }

  /** Reads every page of the business account's templates and replaces the stored set with them. */
  async function syncConnection(companyId: number, whatsappId: number) {
    const w = await connection(companyId, whatsappId);
    if (w.channel !== 'cloud_api')
      throw new AppError('ERR_VALIDATION', 400, 'Only WhatsApp Cloud API connections have templates');
    let cfg;
    try {
      cfg = openCloudConfig(w.channelConfig, deps.box);
    } catch (err) {
      if (err instanceof CloudConfigError) throw new AppError('ERR_TEMPLATE_SYNC_FAILED', 400, err.reason);
      throw err;
    }
    if (!cfg.businessAccountId)
      throw new AppError('ERR_NO_BUSINESS_ACCOUNT', 400, 'Set the WhatsApp Business Account id first');
    const graph = graphClient({
      ...cfg,
      allowPrivate: deps.allowPrivateUrls,
      operatorGraphUrl: deps.operatorGraphUrl,
    });
    const found: GraphTemplate[] = [];
    let after: string | undefined;
    try {
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await graph.templatesPage(cfg.businessAccountId, after);
        found.push(...answer.data);
        if (!answer.after || answer.after === after) break;
        after = answer.after;
      }
    } catch (err) {
      throw new AppError('ERR_TEMPLATE_SYNC_FAILED', 400, (err as Error).message);
    }
    const valid = found.filter(
      (t): t is GraphTemplate & { name: string; language: string } =>
        typeof t.name === 'string' && !!t.name && typeof t.language === 'string' && !!t.language,
    );
    const now = new Date();
    await db.transaction(async (tx) => {
      for (const t of valid)
        await tx
          .insert(messageTemplates)
          .values({
            companyId,
            whatsappId,
            metaId: t.id ?? null,
            name: t.name.slice(0, 512),
            language: t.language.slice(0, 15),
            category: (t.category ?? '').slice(0, 50),
            status: (t.status ?? 'PENDING').toUpperCase().slice(0, 30),
            components: components(t),
            syncedAt: now,
          })
          .onConflictDoUpdate({
            target: [messageTemplates.whatsappId, messageTemplates.name, messageTemplates.language],
            set: {
              metaId: sql`excluded.meta_id`,
              category: sql`excluded.category`,
              status: sql`excluded.status`,
              components: sql`excluded.components`,
              syncedAt: now,
            },
          });
      // Templates deleted at Meta go here too.
      const kept = valid.map((t) => sql`(${t.name.slice(0, 512)}, ${t.language.slice(0, 15)})`);
      await tx
        .delete(messageTemplates)
        .where(
          and(
            eq(messageTemplates.whatsappId, whatsappId),
            kept.length
              ? sql`(${messageTemplates.name}, ${messageTemplates.language}) not in (${sql.join(kept, sql`, `)})`
              : undefined,
          ),
        );
    });
    return list(companyId, whatsappId);
  }

  async function list(companyId: number, whatsappId: number, usableOnly = false) {
    await connection(companyId, whatsappId);
    const rows = await db
      .select()
      .from(messageTemplates)
      .where(
        and(
          eq(messageTemplates.whatsappId, whatsappId),
          eq(messageTemplates.companyId, companyId),
          usableOnly ? eq(messageTemplates.status, 'APPROVED') : undefined,
        ),
      )
      .orderBy(asc(messageTemplates.name), asc(messageTemplates.language));
    return rows.map(view);
  }

  /**
   * Checks a send against the stored template (approved, every variable filled) and answers Graph's
   * `template` object with the text the message is stored with (as WhatsApp shows it).
   */
  async function prepareSend(
    companyId: number,
    whatsappId: number,
    input: TemplateSendInput,
  ): Promise<{ template: TemplateSend; body: string }> {
    const row = await storedTemplate(db, companyId, whatsappId, input);
    if (!row)
      throw new AppError('ERR_NO_TEMPLATE_FOUND', 404, `No template ${input.name} (${input.language})`);
    return templateSendOf(row, input);
  }

  /** Daily: every Cloud API connection with a business account id syncs; one failing does not stop the rest. */
  const syncAllJob = defineJob({
    kind: 'message-templates.sync',
    payload: noPayload,
    options: { every: DAY },
    handler: async () => {
      const rows = await db
        .select({ id: whatsapps.id, companyId: whatsapps.companyId, channelConfig: whatsapps.channelConfig })
        .from(whatsapps)
        .where(eq(whatsapps.channel, 'cloud_api'));
      for (const w of rows) {
        if (!w.channelConfig?.businessAccountId) continue;
        await syncConnection(w.companyId, w.id).catch((err: Error) =>
          deps.log.warn({ whatsappId: w.id, err: err.message }, 'template sync failed'),
        );
      }
    },
  });

  const requireAdmin = (t: Tenant) => {
    if (t.profile !== 'admin' && !t.super) throw new AppError('ERR_NO_PERMISSION', 403);
  };

  return {
    jobs: { syncAll: syncAllJob },
    syncConnection,
    prepareSend,
    list: (t: Tenant, whatsappId: number, usableOnly = false) => list(t.companyId, whatsappId, usableOnly),
    sync(t: Tenant, whatsappId: number) {
      requireAdmin(t);
      return syncConnection(t.companyId, whatsappId);
    },
  };
}
export type MessageTemplateService = ReturnType<typeof messageTemplateService>;
