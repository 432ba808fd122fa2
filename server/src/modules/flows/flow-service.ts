import { randomInt } from 'node:crypto';
import { and, asc, count, desc, eq, ilike, max, sql } from 'drizzle-orm';
import {
  FLOW_PAGE_SIZE,
  FlowExportFile,
  emptyFlowGraph,
  normalizeNumber,
  type FlowGraph,
  type FlowIdMapping,
  type FlowImportInput,
  type FlowIssue,
  type FlowListQuery,
  type FlowMissingReference,
  type FlowReferenceKind,
  type FlowRunView,
  type FlowTryInput,
  type FlowValidation,
} from '@recado/contracts';
import type { Db } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { contacts, flowRuns, flows, flowVersions, tickets, whatsapps } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import { OutboundUrlError, checkUrlShape } from '../../lib/safe-fetch.js';
import type { Tenant } from '../../http/tenant.js';
import type { Clock } from '../../lib/clock.js';
import type { Events } from '../../realtime/events.js';
import { mayFollowTicket } from '../tickets/ticket-queries.js';
import type { FlowRuntime, FlowTriggers } from './flow-runtime.js';
import { referencesOf, schemaIssues, validateStructure } from './flow-validate.js';

type FlowRow = typeof flows.$inferSelect;
type RunRow = typeof flowRuns.$inferSelect;

/** The tables behind each kind of reference a graph can hold. */
const REF_TABLES: Record<FlowReferenceKind, string> = {
  queue: 'queues',
  user: 'users',
  prompt: 'prompts',
  integration: 'queue_integrations',
  file: 'files_options',
  fileList: 'files',
  tag: 'tags',
  flow: 'flows',
  campaign: 'campaigns',
};

export const toSummary = (r: FlowRow) => ({
  id: r.id,
  companyId: r.companyId,
  name: r.name,
  description: r.description,
  status: r.publishedVersion ? ('published' as const) : ('draft' as const),
  active: r.active,
  publishedVersion: r.publishedVersion,
  publishedAt: r.publishedAt?.toISOString() ?? null,
  draftChanged: r.draftChanged,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});
export const toFlow = (r: FlowRow) => ({ ...toSummary(r), graph: r.graph });

export const toRunView = (r: RunRow): FlowRunView => ({
  id: r.id,
  flowId: r.flowId,
  version: r.version,
  ticketId: r.ticketId,
  currentNodeId: r.currentNodeId,
  status: r.status as FlowRunView['status'],
  variables: r.variables,
  isTry: Boolean(r.tryGraph),
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/** 400 ERR_FLOW_INVALID naming the first failing node; `issues` and `fields` carry them all. */
function invalid(issues: FlowIssue[]): AppError {
  const errors = issues.filter((i) => i.severity === 'error');
  return new AppError('ERR_FLOW_INVALID', 400, errors[0]?.message ?? 'The flow is not valid', {
    issues,
    fields: errors.map((i) => ({
      path: i.nodeId ? `graph.nodes.${i.nodeId}${i.code === 'url_not_allowed' ? '.data.url' : ''}` : 'graph',
      message: i.message,
    })),
  });
}

/**
 * Flows of a company (docs/flows.md#api): the draft, immutable published versions, validation, import and
 * export, try-it and "send to flow". The runtime (flow-runtime.ts) runs them.
 */
export function flowService(deps: {
  db: Db;
  clock: Clock;
  runtime: FlowRuntime;
  /** The company's simulator connection, created when there is none (try-it). */
  simulatorConnection: (t: Tenant) => Promise<number>;
  /** ALLOW_PRIVATE_URLS: HTTP nodes may name loopback and private hosts (checked when a graph is saved). */
  allowPrivateUrls?: boolean;
  /** `company-{id}-flow` after each change (the company's room only). */
  events?: Events;
}) {
  const { db, clock, runtime } = deps;
  /** Tells the company's browsers (after the change committed); answers the flow. */
  const announce = (action: 'create' | 'update', r: FlowRow) => {
    deps.events?.toCompany(r.companyId, 'flow', { action, flow: toSummary(r) });
    return toFlow(r);
  };

  async function row(t: Tenant, id: number): Promise<FlowRow> {
    const [r] = await db
      .select()
      .from(flows)
      .where(and(eq(flows.id, id), eq(flows.companyId, t.companyId)));
    if (!r) throw new AppError('ERR_NO_FLOW_FOUND', 404);
    return r;
  }

  /** Ids the graph names that are not this company's (another company's and missing ones look alike). */
  async function foreign(companyId: number, graph: FlowGraph) {
    const refs = referencesOf(graph);
    if (!refs.length) return [];
    const kinds = [...new Set(refs.map((r) => r.kind))];
    const parts = kinds.map((k) => {
      const ids = [...new Set(refs.filter((r) => r.kind === k).map((r) => r.id))];
      return sql`select ${k}::text as kind, id from ${sql.raw(REF_TABLES[k])}
        where company_id = ${companyId} and id = any(${`{${ids.join(',')}}`}::int[])`;
    });
    const found = await executeRows<{ kind: string; id: number }>(db, sql.join(parts, sql` union all `));
    const have = new Set(found.map((f) => `${f.kind}:${Number(f.id)}`));
    return refs.filter((r) => !have.has(`${r.kind}:${r.id}`));
  }

  /** Every issue of a graph: schema, structure and company references. */
  async function check(
    companyId: number,
    raw: unknown,
  ): Promise<{ graph: FlowGraph | null; issues: FlowIssue[] }> {
    const schema = schemaIssues(raw);
    if (schema) return { graph: null, issues: schema };
    const graph = FlowExportFile.shape.graph.parse(raw);
    const issues = validateStructure(graph);
    for (const r of await foreign(companyId, graph))
      issues.push({
        nodeId: r.nodeId,
        code: 'foreign_reference',
        severity: 'error',
        message: `Node ${r.nodeId}: ${r.kind} ${r.id} is not one of this company's`,
        reference: { kind: r.kind, id: r.id },
      });
    graph.nodes.forEach((n, index) => {
      if (n.type !== 'http') return;
      const reason = httpUrlRefusal(n.data.url, deps.allowPrivateUrls ?? false);
      if (reason)
        issues.push({
          nodeId: n.id,
          code: 'url_not_allowed',
          severity: 'error',
          message: `Node ${n.id}: url: URL not allowed: ${reason}`,
          path: `nodes.${index}.data.url`,
        });
    });
    return { graph, issues };
  }

  /** The graph when it has no errors; otherwise 400 naming the node (nothing saved). */
  async function acceptable(companyId: number, raw: unknown): Promise<FlowGraph> {
    const { graph, issues } = await check(companyId, raw);
    if (!graph || issues.some((i) => i.severity === 'error')) throw invalid(issues);
    return graph;
  }

  const triggersOf = (graph: FlowGraph): FlowTriggers | null => {
    const s = graph.nodes.find((n) => n.type === 'start');
    if (!s || s.type !== 'start') return null;
    const { keywords, keywordMatch, priority, campaignReply, campaignIds, outOfHours } = s.data;
    return { keywords, keywordMatch, priority, campaignReply, campaignIds, outOfHours };
  };

  async function insertFlow(t: Tenant, name: string, description: string, graph: FlowGraph) {
    const [r] = await db
      .insert(flows)
      .values({
        companyId: t.companyId,
        name,
        description,
        graph,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      })
      .returning();
    return announce('create', r!);
  }

  return {
    async list(t: Tenant, q: FlowListQuery) {
      const where = and(
        eq(flows.companyId, t.companyId),
        q.searchParam ? ilike(flows.name, `%${q.searchParam}%`) : undefined,
      );
      const rows = await db
        .select()
        .from(flows)
        .where(where)
        .orderBy(asc(flows.name), asc(flows.id))
        .limit(FLOW_PAGE_SIZE + 1)
        .offset((q.pageNumber - 1) * FLOW_PAGE_SIZE);
      const [total] = await db.select({ n: count() }).from(flows).where(where);
      return {
        flows: rows.slice(0, FLOW_PAGE_SIZE).map(toSummary),
        count: Number(total?.n ?? 0),
        hasMore: rows.length > FLOW_PAGE_SIZE,
      };
    },

    async all(t: Tenant) {
      const rows = await db
        .select()
        .from(flows)
        .where(eq(flows.companyId, t.companyId))
        .orderBy(asc(flows.name));
      return rows.map(toSummary);
    },

    get: async (t: Tenant, id: number) => toFlow(await row(t, id)),

    async create(t: Tenant, input: { name: string; description?: string; graph?: unknown }) {
      const graph = input.graph === undefined ? emptyFlowGraph() : await acceptable(t.companyId, input.graph);
      return insertFlow(t, input.name, input.description ?? '', graph);
    },

    async update(
      t: Tenant,
      id: number,
      input: { name?: string; description?: string; graph?: unknown; active?: boolean },
    ) {
      await row(t, id);
      const graph = input.graph === undefined ? undefined : await acceptable(t.companyId, input.graph);
      const [r] = await db
        .update(flows)
        .set({
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.active !== undefined ? { active: input.active } : {}),
          ...(graph ? { graph, draftChanged: true } : {}),
          updatedAt: clock.now(),
        })
        .where(and(eq(flows.id, id), eq(flows.companyId, t.companyId)))
        .returning();
      return announce('update', r!);
    },

    async remove(t: Tenant, id: number) {
      await row(t, id);
      const active = await db
        .select({ ticketId: flowRuns.ticketId })
        .from(flowRuns)
        .where(
          and(
            eq(flowRuns.flowId, id),
            eq(flowRuns.companyId, t.companyId),
            sql`${flowRuns.status} in ('running', 'waiting', 'held')`,
          ),
        );
      for (const a of active) await runtime.cancelTicket(t.companyId, a.ticketId);
      await db.delete(flows).where(and(eq(flows.id, id), eq(flows.companyId, t.companyId)));
      deps.events?.toCompany(t.companyId, 'flow', { action: 'delete', flowId: id });
      return { message: 'Flow deleted' };
    },

    /** The draft's issues, or those of a graph sent to check (nothing saved). */
    async validate(t: Tenant, id: number, graph?: unknown): Promise<FlowValidation> {
      const r = await row(t, id);
      const { issues } = await check(t.companyId, graph === undefined ? r.graph : graph);
      return { valid: !issues.some((i) => i.severity === 'error'), issues };
    },

    /** Validates the draft and stores it as the next immutable version; runs in progress keep theirs. */
    async publish(t: Tenant, id: number) {
      const r = await row(t, id);
      const graph = await acceptable(t.companyId, r.graph);
      const saved = await db.transaction(async (tx) => {
        // Lock the flow: two publishes at once get consecutive versions.
        await tx.select({ id: flows.id }).from(flows).where(eq(flows.id, id)).for('update');
        const [last] = await tx
          .select({ v: max(flowVersions.version) })
          .from(flowVersions)
          .where(eq(flowVersions.flowId, id));
        const version = Number(last?.v ?? 0) + 1;
        await tx.insert(flowVersions).values({
          companyId: t.companyId,
          flowId: id,
          version,
          graph,
          publishedBy: t.userId || null,
          publishedAt: clock.now(),
        });
        const [u] = await tx
          .update(flows)
          .set({
            publishedVersion: version,
            publishedAt: clock.now(),
            draftChanged: false,
            triggers: triggersOf(graph) as unknown as Record<string, unknown>,
            updatedAt: clock.now(),
          })
          .where(eq(flows.id, id))
          .returning();
        return u!;
      });
      return announce('update', saved);
    },

    async version(t: Tenant, id: number, version: number) {
      await row(t, id);
      const [v] = await db
        .select()
        .from(flowVersions)
        .where(
          and(
            eq(flowVersions.flowId, id),
            eq(flowVersions.version, version),
            eq(flowVersions.companyId, t.companyId),
          ),
        );
      if (!v) throw new AppError('ERR_NOT_FOUND', 404, 'No such version');
      return {
        flowId: id,
        version: v.version,
        graph: v.graph,
        publishedAt: v.publishedAt,
        publishedBy: v.publishedBy,
      };
    },

    async exportFile(t: Tenant, id: number): Promise<{ file: FlowExportFile; filename: string }> {
      const r = await row(t, id);
      const file: FlowExportFile = {
        format: 'recado-flow',
        formatVersion: 1,
        name: r.name,
        description: r.description,
        graph: r.graph,
      };
      const slug =
        r.name
          .normalize('NFD')
          .replace(/[^\w-]+/g, '-')
          .replace(/^-+|-+$/g, '')
          .toLowerCase() || 'flow';
      return { file, filename: `${slug}.flow.json` };
    },

    /**
     * Imports a file as a new draft. Ids the file names that are not this company's are mapped by the admin
     * (`mapping`); those still unmapped answer 400 ERR_FLOW_IMPORT_UNMAPPED with `missing`, nothing saved.
     */
    async importFile(t: Tenant, input: FlowImportInput) {
      const graph = applyMapping(input.file.graph, input.mapping);
      const missing = new Map<string, FlowMissingReference>();
      for (const r of await foreign(t.companyId, graph)) {
        const key = `${r.kind}:${r.id}`;
        const m = missing.get(key) ?? { kind: r.kind, id: r.id, nodeIds: [] };
        if (!m.nodeIds.includes(r.nodeId)) m.nodeIds.push(r.nodeId);
        missing.set(key, m);
      }
      if (missing.size) {
        const list = [...missing.values()];
        throw new AppError(
          'ERR_FLOW_IMPORT_UNMAPPED',
          400,
          `Map these ids to this company's: ${list.map((m) => `${m.kind} ${m.id} (node ${m.nodeIds.join(', ')})`).join('; ')}`,
          {
            missing: list,
            fields: list.map((m) => ({
              path: `mapping.${m.kind}.${m.id}`,
              message: `node ${m.nodeIds.join(', ')}`,
            })),
          },
        );
      }
      const accepted = await acceptable(t.companyId, graph);
      return insertFlow(t, input.file.name, input.file.description, accepted);
    },

    /** Runs the DRAFT in a simulator conversation (docs/flows.md#try-it). */
    async tryDraft(t: Tenant, id: number, input: FlowTryInput) {
      const r = await row(t, id);
      const graph = await acceptable(t.companyId, r.graph);
      const whatsappId = await deps.simulatorConnection(t);
      const number = normalizeNumber(
        input.contactNumber ?? `55119${String(randomInt(10_000_000, 99_999_999))}`,
      );
      const [contact] = await db
        .insert(contacts)
        .values({ companyId: t.companyId, name: 'Flow try', number })
        .onConflictDoUpdate({
          target: [contacts.companyId, contacts.number],
          targetWhere: sql`number <> ''`,
          set: { updatedAt: clock.now() },
        })
        .returning();
      const [open] = await db
        .select()
        .from(tickets)
        .where(
          and(
            eq(tickets.contactId, contact!.id),
            eq(tickets.whatsappId, whatsappId),
            eq(tickets.companyId, t.companyId),
            sql`${tickets.status} <> 'closed'`,
          ),
        )
        .orderBy(desc(tickets.id))
        .limit(1);
      let ticket = open;
      if (ticket) {
        [ticket] = await db
          .update(tickets)
          .set({ status: 'pending', userId: null, updatedAt: clock.now() })
          .where(eq(tickets.id, ticket.id))
          .returning();
      } else {
        [ticket] = await db
          .insert(tickets)
          .values({
            companyId: t.companyId,
            contactId: contact!.id,
            whatsappId,
            status: 'pending',
            isGroup: false,
          })
          .returning();
      }
      const run = await runtime.start({
        companyId: t.companyId,
        ticket: ticket!,
        flowId: id,
        version: null,
        tryGraph: graph,
        trigger: 'try',
      });
      if (!run) throw new AppError('ERR_FLOW_INVALID', 400, 'The flow has no start node');
      return { run: toRunView(run), whatsappId, contactNumber: number, ticketId: ticket!.id };
    },

    /** POST /tickets/{id}/flow: an attendant sends the customer to a flow's published version. */
    async sendTicket(t: Tenant, ticketId: number, flowId: number) {
      if (!(await mayFollowTicket(db, t, ticketId))) throw new AppError('ERR_NO_TICKET_FOUND', 404);
      const f = await row(t, flowId);
      if (!f.publishedVersion)
        throw new AppError('ERR_FLOW_NOT_PUBLISHED', 400, `Flow "${f.name}" has no published version`);
      // The customer leaves the attendant (pending, nobody's, announced) and the flow starts at once.
      const run = await runtime.startPublished(
        t.companyId,
        ticketId,
        flowId,
        'ticket',
        undefined,
        undefined,
        true,
      );
      if (!run) throw new AppError('ERR_FLOW_NOT_PUBLISHED', 400);
      return toRunView(run);
    },

    /** Whether the caller may follow the flow's try runs (its socket room): an admin of its company. */
    async mayWatch(t: Tenant, flowId: number) {
      if (t.profile !== 'admin' && !t.super) return false;
      const [r] = await db
        .select({ id: flows.id })
        .from(flows)
        .where(and(eq(flows.id, flowId), eq(flows.companyId, t.companyId)));
      return Boolean(r);
    },

    /** The company's simulator connection id, if any (try-it). */
    async simulatorOf(companyId: number) {
      const [w] = await db
        .select({ id: whatsapps.id })
        .from(whatsapps)
        .where(and(eq(whatsapps.companyId, companyId), eq(whatsapps.channel, 'simulator')))
        .orderBy(asc(whatsapps.id))
        .limit(1);
      return w?.id ?? null;
    },
  };
}
export type FlowService = ReturnType<typeof flowService>;

/**
 * Why an HTTP node's URL is refused when the flow is saved, or null (docs/flows.md#http-request): the same
 * shape rules the runtime's guard (`safeFetch`) applies, on the part of the URL written literally — its scheme
 * and host. A host made of variables (`{{lookupUrl}}`, `https://{{host}}/x`) is known only at run time, where
 * the guard checks it (and every address a name resolves to) again.
 */
export function httpUrlRefusal(template: string, allowPrivate: boolean): string | null {
  const origin = /^\s*([a-z][a-z0-9+.-]*:\/\/[^/?#]*)/i.exec(template)?.[1];
  if (!origin) return /^\s*\{\{/.test(template) ? null : 'not a valid URL';
  if (origin.includes('{{')) return null;
  try {
    checkUrlShape(`${origin}/`, { allowPrivate, allowQuery: true });
    return null;
  } catch (err) {
    if (err instanceof OutboundUrlError) return err.reason;
    throw err;
  }
}

/** Replaces the file's ids by the admin's choices (kinds and ids not in the mapping stay as they are). */
export function applyMapping(graph: FlowGraph, mapping: FlowIdMapping): FlowGraph {
  const map = (kind: FlowReferenceKind, id: number | null | undefined) =>
    typeof id === 'number' ? (mapping[kind]?.[String(id)] ?? id) : id;
  const nodes = graph.nodes.map((n) => {
    switch (n.type) {
      case 'start':
        return {
          ...n,
          data: { ...n.data, campaignIds: n.data.campaignIds.map((id) => map('campaign', id)!) },
        };
      case 'message':
        return {
          ...n,
          data: {
            ...n.data,
            fileListId: map('fileList', n.data.fileListId),
            fileId: map('file', n.data.fileId),
          },
        };
      case 'condition':
        return {
          ...n,
          data: {
            ...n.data,
            rules: n.data.rules.map((r) =>
              r.kind === 'tag'
                ? { ...r, tagId: map('tag', r.tagId)! }
                : r.kind === 'business_hours'
                  ? { ...r, queueId: map('queue', r.queueId) }
                  : r,
            ),
          },
        };
      case 'set':
        return {
          ...n,
          data: {
            ...n.data,
            actions: n.data.actions.map((a) =>
              a.kind === 'tag' ? { ...a, tagId: map('tag', a.tagId)! } : a,
            ),
          },
        };
      case 'ai_prompt':
        return { ...n, data: { ...n.data, promptId: map('prompt', n.data.promptId)! } };
      case 'typebot':
      case 'n8n':
        return { ...n, data: { ...n.data, integrationId: map('integration', n.data.integrationId)! } };
      case 'transfer':
        return {
          ...n,
          data: {
            ...n.data,
            queueId: map('queue', n.data.queueId),
            userId: map('user', n.data.userId),
            flowId: map('flow', n.data.flowId),
          },
        };
      default:
        return n;
    }
  });
  return { ...graph, nodes: nodes as FlowGraph['nodes'] };
}
