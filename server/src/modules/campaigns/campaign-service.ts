import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import {
  allowsFirstContact,
  campaignEditable,
  type Campaign,
  type CampaignEvent,
  type CampaignInput,
  type CampaignListQuery,
  type CampaignReport,
  type CampaignShippingQuery,
  type CampaignUpdate,
} from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import { campaigns, contactLists, files, tags, whatsapps } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Events } from '../../realtime/events.js';
import type { Clock } from '../../lib/clock.js';
import type { MediaStore } from '../../messaging/media-store.js';
import type { MediaPayload } from '../../messaging/channel.js';
import { countsOf, pageOf, shippingsPage, withNames, type CampaignRow } from './campaign-queries.js';
import type { CampaignDispatch } from './campaign-dispatch.js';
import { checkTemplateMapping, storedTemplate } from './campaign-template.js';

const PAGE_SIZE = 20;
const SHIPPINGS_PAGE_SIZE = 50;

type Refs = Pick<CampaignRow, 'whatsappId' | 'contactListId' | 'tagId' | 'fileListId'>;

export function campaignService(deps: {
  db: Db;
  events: Events;
  clock: Clock;
  media: MediaStore;
  dispatch: CampaignDispatch;
}) {
  const { db, events, clock, dispatch } = deps;

  const emit = (companyId: number, payload: CampaignEvent) =>
    events.toCompany(companyId, 'campaign', payload);
  const view = async (r: CampaignRow): Promise<Campaign> => (await withNames(db, [r], clock.now()))[0]!;

  async function row(companyId: number, id: number): Promise<CampaignRow> {
    const [r] = await db
      .select()
      .from(campaigns)
      .where(and(eq(campaigns.id, id), eq(campaigns.companyId, companyId)));
    if (!r) throw new AppError('ERR_NO_CAMPAIGN_FOUND', 404);
    return r;
  }

  /** Every reference must be the company's own: another company's id answers as not found. */
  async function checkRefs(companyId: number, r: Refs) {
    const one = async (
      table: typeof whatsapps | typeof contactLists | typeof tags | typeof files,
      id: number,
    ) =>
      (
        await db
          .select({ id: table.id })
          .from(table)
          .where(and(eq(table.id, id), eq(table.companyId, companyId)))
      ).length > 0;
    if (r.whatsappId && !(await one(whatsapps, r.whatsappId))) throw new AppError('ERR_NO_WAPP_FOUND', 404);
    if (r.contactListId && !(await one(contactLists, r.contactListId)))
      throw new AppError('ERR_NOT_FOUND', 404, 'contact list not found');
    if (r.tagId && !(await one(tags, r.tagId))) throw new AppError('ERR_NOT_FOUND', 404, 'tag not found');
    if (r.fileListId && !(await one(files, r.fileListId)))
      throw new AppError('ERR_NOT_FOUND', 404, 'file list not found');
  }

  /**
   * The connection's channel; #34.4 only a channel that may write first to someone carries a campaign
   * (website chat, Telegram, Instagram and Messenger answer people who wrote in: ERR_CAMPAIGN_CHANNEL).
   */
  async function channelOf(companyId: number, whatsappId: number | null): Promise<string | undefined> {
    if (!whatsappId) return undefined;
    const [w] = await db
      .select({ channel: whatsapps.channel })
      .from(whatsapps)
      .where(and(eq(whatsapps.id, whatsappId), eq(whatsapps.companyId, companyId)));
    if (w && !allowsFirstContact(w.channel))
      throw new AppError(
        'ERR_CAMPAIGN_CHANNEL',
        400,
        `A ${w.channel} connection only answers customers who wrote in: campaigns go over WhatsApp, Cloud API or simulator connections`,
      );
    return w?.channel;
  }

  /**
   * Cloud API connections send approved templates only (Meta refuses free text to people who did not write
   * in the last 24 h): such a campaign must carry a template whose every value has a source, and a template
   * only goes over a Cloud API connection.
   */
  async function checkTemplate(
    companyId: number,
    r: Pick<CampaignRow, 'whatsappId' | 'template' | 'scheduledAt'>,
  ) {
    const channel = await channelOf(companyId, r.whatsappId);
    if (!r.template) {
      if (channel === 'cloud_api' && r.scheduledAt)
        throw new AppError(
          'ERR_CAMPAIGN_TEMPLATE_REQUIRED',
          400,
          'A WhatsApp Cloud API campaign sends an approved message template: choose one',
        );
      return;
    }
    if (!r.whatsappId) return; // an inactive draft without a connection yet; checked once it has one
    if (channel !== 'cloud_api')
      throw new AppError(
        'ERR_CAMPAIGN_TEMPLATE_CHANNEL',
        400,
        'Message templates are sent over WhatsApp Cloud API connections only',
      );
    checkTemplateMapping(await storedTemplate(db, companyId, r.whatsappId, r.template), r.template);
  }

  /** A scheduled campaign must be able to run: a connection and an audience. */
  function checkRunnable(r: Refs & { scheduledAt: Date | null }) {
    if (!r.scheduledAt) return;
    if (!r.whatsappId) throw new AppError('ERR_VALIDATION', 400, 'whatsappId: a connection is required');
    if (!r.contactListId && !r.tagId)
      throw new AppError('ERR_VALIDATION', 400, 'contactListId: a contact list or a tag is required');
  }

  async function syncStart(tx: Tx, r: CampaignRow) {
    if (r.status === 'PROGRAMADA' && r.scheduledAt)
      await dispatch.scheduleStart({ id: r.id, companyId: r.companyId, scheduledAt: r.scheduledAt }, tx);
  }

  function assertEditable(r: CampaignRow) {
    if (!campaignEditable(r, clock.now()))
      throw new AppError(
        'ERR_CAMPAIGN_NOT_EDITABLE',
        409,
        'Only an inactive campaign, or one scheduled more than an hour ahead, can be changed',
      );
  }

  return {
    row,

    async list(t: Tenant, q: CampaignListQuery) {
      const page = await pageOf(db, t.companyId, q.searchParam, q.pageNumber, PAGE_SIZE);
      return { records: await withNames(db, page.rows, clock.now()), hasMore: page.hasMore };
    },

    async get(t: Tenant, id: number): Promise<CampaignReport> {
      const r = await row(t.companyId, id);
      return { ...(await view(r)), counts: await countsOf(db, r.id) };
    },

    /** The report's recipients (the failed ones with Meta's error, or all), a page at a time. */
    async shippings(t: Tenant, id: number, q: CampaignShippingQuery) {
      const r = await row(t.companyId, id);
      return shippingsPage(db, r.companyId, r.id, q, SHIPPINGS_PAGE_SIZE);
    },

    async create(t: Tenant, input: CampaignInput): Promise<Campaign> {
      const scheduledAt = input.scheduledAt ? new Date(input.scheduledAt) : null;
      const refs: Refs = {
        whatsappId: input.whatsappId ?? null,
        contactListId: input.contactListId ?? null,
        tagId: input.tagId ?? null,
        fileListId: input.fileListId ?? null,
      };
      await checkRefs(t.companyId, refs);
      await channelOf(t.companyId, refs.whatsappId);
      checkRunnable({ ...refs, scheduledAt });
      const template = input.template ?? null;
      await checkTemplate(t.companyId, { whatsappId: refs.whatsappId, template, scheduledAt });
      const created = await db.transaction(async (tx) => {
        const [r] = await tx
          .insert(campaigns)
          .values({
            companyId: t.companyId,
            name: input.name,
            message1: input.message1,
            message2: input.message2,
            message3: input.message3,
            message4: input.message4,
            message5: input.message5,
            confirmation: input.confirmation,
            confirmationMessage1: input.confirmationMessage1,
            confirmationMessage2: input.confirmationMessage2,
            confirmationMessage3: input.confirmationMessage3,
            confirmationMessage4: input.confirmationMessage4,
            confirmationMessage5: input.confirmationMessage5,
            status: scheduledAt ? 'PROGRAMADA' : 'INATIVA',
            scheduledAt,
            template,
            ...refs,
          })
          .returning();
        await syncStart(tx, r!);
        return r!;
      });
      const record = await view(created);
      emit(t.companyId, { action: 'create', record });
      return record;
    },

    async update(t: Tenant, id: number, input: CampaignUpdate): Promise<Campaign> {
      const current = await row(t.companyId, id);
      assertEditable(current);
      const next = { ...current };
      for (const [k, v] of Object.entries(input))
        if (v !== undefined && k !== 'scheduledAt') Object.assign(next, { [k]: v });
      if (input.scheduledAt !== undefined)
        next.scheduledAt = input.scheduledAt ? new Date(input.scheduledAt) : null;
      if (input.contactListId) next.tagId = input.tagId ?? null;
      if (input.tagId) next.contactListId = input.contactListId ?? null;
      if (
        !next.template &&
        ![1, 2, 3, 4, 5].some((i) => String(next[`message${i}` as keyof CampaignRow] ?? '').trim())
      )
        throw new AppError('ERR_VALIDATION', 400, 'message1: at least one message');
      await checkRefs(t.companyId, next);
      await channelOf(t.companyId, next.whatsappId);
      checkRunnable(next);
      await checkTemplate(t.companyId, next);
      next.status = next.scheduledAt ? 'PROGRAMADA' : 'INATIVA';
      const updated = await db.transaction(async (tx) => {
        const [r] = await tx
          .update(campaigns)
          .set({
            name: next.name,
            message1: next.message1,
            message2: next.message2,
            message3: next.message3,
            message4: next.message4,
            message5: next.message5,
            confirmation: next.confirmation,
            confirmationMessage1: next.confirmationMessage1,
            confirmationMessage2: next.confirmationMessage2,
            confirmationMessage3: next.confirmationMessage3,
            confirmationMessage4: next.confirmationMessage4,
            confirmationMessage5: next.confirmationMessage5,
            status: next.status,
            scheduledAt: next.scheduledAt,
            whatsappId: next.whatsappId,
            contactListId: next.contactListId,
            tagId: next.tagId,
            fileListId: next.fileListId,
            template: next.template,
            updatedAt: clock.now(),
          })
          // Still in the state that was checked (a start job may have just taken it).
          .where(and(eq(campaigns.id, id), eq(campaigns.status, current.status)))
          .returning();
        if (!r) throw new AppError('ERR_CAMPAIGN_NOT_EDITABLE', 409);
        await syncStart(tx, r);
        return r;
      });
      if (updated.status === 'INATIVA') await dispatch.unscheduleStart(id);
      const record = await view(updated);
      emit(t.companyId, { action: 'update', record });
      return record;
    },

    async remove(t: Tenant, id: number) {
      const r = await row(t.companyId, id);
      if (r.status === 'EM_ANDAMENTO')
        throw new AppError('ERR_CAMPAIGN_INVALID_STATUS', 409, 'Stop the campaign before deleting it');
      await db.delete(campaigns).where(and(eq(campaigns.id, id), eq(campaigns.companyId, t.companyId)));
      await dispatch.unscheduleStart(id);
      if (r.mediaPath) await deps.media.remove(r.mediaPath);
      emit(t.companyId, { action: 'delete', id });
      return { message: 'Campaign deleted' };
    },

    /** EM_ANDAMENTO → CANCELADA: the send chain sees it before its next send. */
    async cancel(t: Tenant, id: number): Promise<Campaign> {
      await row(t.companyId, id);
      const [r] = await db
        .update(campaigns)
        .set({ status: 'CANCELADA', updatedAt: clock.now() })
        .where(
          and(
            eq(campaigns.id, id),
            eq(campaigns.companyId, t.companyId),
            eq(campaigns.status, 'EM_ANDAMENTO'),
          ),
        )
        .returning();
      if (!r)
        throw new AppError('ERR_CAMPAIGN_INVALID_STATUS', 409, 'Only a campaign in progress can be stopped');
      const record = await view(r);
      emit(t.companyId, { action: 'update', record, counts: await countsOf(db, id) });
      return record;
    },

    /** CANCELADA → EM_ANDAMENTO: a new send chain continues with the rows not yet sent. */
    async restart(t: Tenant, id: number): Promise<Campaign> {
      await channelOf(t.companyId, (await row(t.companyId, id)).whatsappId);
      const token = randomUUID();
      const r = await db.transaction(async (tx) => {
        const [u] = await tx
          .update(campaigns)
          .set({ status: 'EM_ANDAMENTO', dispatchToken: token, completedAt: null, updatedAt: clock.now() })
          .where(
            and(
              eq(campaigns.id, id),
              eq(campaigns.companyId, t.companyId),
              eq(campaigns.status, 'CANCELADA'),
            ),
          )
          .returning();
        if (!u) return null;
        await dispatch.resume(u, token, tx);
        return u;
      });
      if (!r)
        throw new AppError('ERR_CAMPAIGN_INVALID_STATUS', 409, 'Only a stopped campaign can be restarted');
      const record = await view(r);
      emit(t.companyId, { action: 'update', record, counts: await countsOf(db, id) });
      return record;
    },

    async uploadMedia(t: Tenant, id: number, file: MediaPayload): Promise<Campaign> {
      const current = await row(t.companyId, id);
      assertEditable(current);
      const path = await deps.media.save(t.companyId, file.data, file.filename, 'campaigns');
      const [r] = await db
        .update(campaigns)
        .set({ mediaPath: path, mediaName: file.filename, updatedAt: clock.now() })
        .where(and(eq(campaigns.id, id), eq(campaigns.companyId, t.companyId)))
        .returning();
      if (current.mediaPath) await deps.media.remove(current.mediaPath);
      const record = await view(r!);
      emit(t.companyId, { action: 'update', record });
      return record;
    },

    async deleteMedia(t: Tenant, id: number): Promise<Campaign> {
      const current = await row(t.companyId, id);
      assertEditable(current);
      const [r] = await db
        .update(campaigns)
        .set({ mediaPath: null, mediaName: null, updatedAt: clock.now() })
        .where(and(eq(campaigns.id, id), eq(campaigns.companyId, t.companyId)))
        .returning();
      if (current.mediaPath) await deps.media.remove(current.mediaPath);
      const record = await view(r!);
      emit(t.companyId, { action: 'update', record });
      return record;
    },
  };
}
export type CampaignService = ReturnType<typeof campaignService>;
