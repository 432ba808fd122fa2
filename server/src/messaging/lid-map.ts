import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { contacts, lidMappings } from '../db/schema/index.js';
import { executeRows } from '../db/rows.js';
import type { Tenant } from '../http/tenant.js';
import type { ContactMergeService } from '../modules/contact-merge/merge-service.js';
import type { ContactService } from '../modules/contacts/contact-service.js';
import type { InboundMessage, LidPair } from './channel.js';
import type { ConnectionRef, SessionManagerDeps } from './session-manager.js';

type Inbound = SessionManagerDeps['inbound'];

/** Pairs remembered per process (a LID's phone never changes): a known pair costs no statement. */
const CACHE_CAP = 20_000;

/** `<digits>@lid` from any spelling of a LID (`123@lid`, `123:4@lid`, `123@hosted.lid`, bare digits); else ''. */
export function canonicalLid(lid: string | null | undefined): string {
  const m = /^(\d{5,})(?::\d+)?(?:@(?:hosted\.)?lid)?$/.exec((lid ?? '').trim());
  return m ? `${m[1]}@lid` : '';
}

/** A phone number as the pipeline stores it (digits, 8 to 15 of them); '' when it is not one. */
const canonicalNumber = (n: string | null | undefined) => {
  const d = (n ?? '').replace(/\D/g, '');
  return d.length >= 8 && d.length <= 15 ? d : '';
};

/**
 * #33.6 WhatsApp's hidden ids (docs/messaging.md "LID numbers"). Each connection keeps what it learnt about a
 * LID and the phone behind it (`lid_mappings`, company and connection scoped), from every event that reveals
 * both. A message from a LID the connection knows is the phone's (same contact, same ticket). A LID-only
 * contact created before its phone was known is merged into the phone's contact, automatically, through the
 * contact merge (tickets, messages, tags and fields move; a timeline entry and an audit entry by the system),
 * as soon as the connection learns the pair; without a phone contact it simply takes the number.
 */
export function lidMap(deps: {
  db: Db;
  merge: Pick<ContactMergeService, 'merge'>;
  contacts: Pick<ContactService, 'get' | 'announce'>;
  log: { warn(o: object, m: string): void; info?(o: object, m: string): void };
}) {
  const { db } = deps;
  const cache = new Map<string, string>();
  const key = (whatsappId: number, lid: string) => `${whatsappId}:${lid}`;
  const remember = (whatsappId: number, lid: string, number: string) => {
    const k = key(whatsappId, lid);
    cache.delete(k);
    cache.set(k, number);
    if (cache.size > CACHE_CAP) cache.delete(cache.keys().next().value!);
  };
  /** The platform acting on its own in a company (no user): the merge's system form. */
  const system = (companyId: number): Tenant => ({
    userId: 0,
    companyId,
    profile: 'admin',
    super: false,
    sessionId: 'system',
  });

  /** One contact of the LID and one of the phone become one (or the LID's takes the number). */
  async function reconcile(companyId: number, pair: LidPair) {
    const [byLid] = await db
      .select()
      .from(contacts)
      .where(and(eq(contacts.companyId, companyId), eq(contacts.lid, pair.lid)));
    const [byNumber] = await db
      .select()
      .from(contacts)
      .where(and(eq(contacts.companyId, companyId), eq(contacts.number, pair.number)));
    if (byLid && byNumber && byLid.id !== byNumber.id) {
      // Only a contact that never had a phone is the same person; two phones are two people.
      if (byLid.number !== '' || byLid.isGroup || byNumber.isGroup) return;
      await deps.merge.merge(system(companyId), byNumber.id, byLid.id, {}, { system: 'lid_mapping' });
      deps.log.info?.(
        { companyId, survivor: byNumber.id, merged: byLid.id },
        'LID contact merged into its phone',
      );
      return;
    }
    if (byLid && !byNumber && byLid.number === '' && !byLid.isGroup) {
      const [changed] = await db
        .update(contacts)
        .set({
          number: pair.number,
          // The name was the bare LID: the number reads better.
          ...(byLid.name === byLid.lid || byLid.name === '' ? { name: pair.number } : {}),
          updatedAt: new Date(),
        })
        .where(and(eq(contacts.id, byLid.id), eq(contacts.number, '')))
        .returning({ id: contacts.id });
      if (changed) await announce(companyId, byLid.id);
      return;
    }
    if (byNumber && !byLid && !byNumber.lid && !byNumber.isGroup) {
      await db
        .update(contacts)
        .set({ lid: pair.lid, updatedAt: new Date() })
        .where(and(eq(contacts.id, byNumber.id), sql`${contacts.lid} is null`));
    }
  }

  async function announce(companyId: number, contactId: number) {
    const contact = await deps.contacts.get(system(companyId), contactId).catch(() => undefined);
    if (contact) deps.contacts.announce(companyId, { action: 'update', contact });
  }

  const clean = (pairs: LidPair[]) => {
    const out = new Map<string, string>();
    for (const p of pairs) {
      const lid = canonicalLid(p.lid);
      const number = canonicalNumber(p.number);
      if (lid && number && lid !== `${number}@lid`) out.set(lid, number);
    }
    return [...out].map(([lid, number]) => ({ lid, number }));
  };

  const service = {
    /**
     * Stores what a connection learnt (new or changed pairs only; known ones cost nothing) and reconciles the
     * company's contacts for each. Never throws for one pair's reconciliation: it is logged and the rest go on.
     */
    async learn(ref: Pick<ConnectionRef, 'id' | 'companyId'>, pairs: LidPair[], source: string) {
      const fresh = clean(pairs).filter((p) => cache.get(key(ref.id, p.lid)) !== p.number);
      if (!fresh.length) return;
      await executeRows(
        db,
        sql`insert into lid_mappings (company_id, whatsapp_id, lid, number, source)
          select ${ref.companyId}, ${ref.id}, x.lid, x.number, ${source}
          from jsonb_to_recordset(${JSON.stringify(fresh)}::jsonb) as x(lid text, number text)
          on conflict (whatsapp_id, lid) do update set number = excluded.number, source = excluded.source,
            updated_at = now()
          where lid_mappings.number <> excluded.number`,
      );
      for (const p of fresh) remember(ref.id, p.lid, p.number);
      // Even a pair stored before (another process, a restart) is reconciled: a LID-only contact may have
      // come from another connection of the company meanwhile. One read per 500 pairs (a history sync brings
      // thousands) finds those with something to do: a contact of the LID or of the phone, not yet one.
      const todo: LidPair[] = [];
      for (let i = 0; i < fresh.length; i += 500) {
        const chunk = fresh.slice(i, i + 500);
        const known = await db
          .select({ id: contacts.id, lid: contacts.lid, number: contacts.number })
          .from(contacts)
          .where(
            and(
              eq(contacts.companyId, ref.companyId),
              or(
                inArray(
                  contacts.lid,
                  chunk.map((p) => p.lid),
                ),
                inArray(
                  contacts.number,
                  chunk.map((p) => p.number),
                ),
              ),
            ),
          );
        for (const p of chunk) {
          const byLid = known.find((c) => c.lid === p.lid);
          const byNumber = known.find((c) => c.number === p.number);
          if ((byLid || byNumber) && byLid?.id !== byNumber?.id) todo.push(p);
        }
      }
      for (const p of todo) {
        try {
          await reconcile(ref.companyId, p);
        } catch (err) {
          deps.log.warn({ err, whatsappId: ref.id, lid: p.lid }, 'LID reconciliation failed');
        }
      }
    },

    /** The phone behind a LID as this connection knows it, or undefined. */
    async resolve(ref: Pick<ConnectionRef, 'id' | 'companyId'>, lid: string): Promise<string | undefined> {
      const l = canonicalLid(lid);
      if (!l) return undefined;
      const hit = cache.get(key(ref.id, l));
      if (hit) return hit;
      const [row] = await db
        .select({ number: lidMappings.number })
        .from(lidMappings)
        .where(
          and(
            eq(lidMappings.whatsappId, ref.id),
            eq(lidMappings.companyId, ref.companyId),
            eq(lidMappings.lid, l),
          ),
        );
      if (row) remember(ref.id, l, row.number);
      return row?.number;
    },

    /**
     * A message as the pipeline should store it: what it reveals is learnt first (so a LID-only contact is
     * merged before the phone's contact takes its LID), and a LID-only sender the connection knows becomes
     * its phone (a group's participant too).
     */
    async prepare(ref: ConnectionRef, m: InboundMessage): Promise<InboundMessage> {
      const pairs: LidPair[] = [];
      if (!m.isGroup && m.from && m.lid) pairs.push({ lid: m.lid, number: m.from });
      if (m.participant?.number && m.participant.lid)
        pairs.push({ lid: m.participant.lid, number: m.participant.number });
      if (pairs.length) await service.learn(ref, pairs, 'message');
      let out = m;
      if (!m.isGroup && !m.from && m.lid) {
        const number = await service.resolve(ref, m.lid);
        if (number) out = { ...out, from: number };
      }
      if (m.participant && !m.participant.number && m.participant.lid) {
        const number = await service.resolve(ref, m.participant.lid);
        if (number) out = { ...out, participant: { ...m.participant, number } };
      }
      return out;
    },
  };
  return service;
}
export type LidMap = ReturnType<typeof lidMap>;

/** The channels' deliveries through the LID map first (lidMap.prepare), and their learnt pairs into it. */
export function withLidMap(inbound: Inbound, lids: LidMap): Inbound {
  const needs = (m: InboundMessage) => Boolean(m.lid || m.participant?.lid);
  const prepare = (ref: ConnectionRef, m: InboundMessage) => (needs(m) ? lids.prepare(ref, m) : m);
  return {
    async message(ref, m) {
      return inbound.message(ref, await prepare(ref, m));
    },
    messages: inbound.messages
      ? async (ref, ms) => {
          const prepared: InboundMessage[] = [];
          for (const m of ms) prepared.push(await prepare(ref, m));
          return inbound.messages!(ref, prepared);
        }
      : undefined,
    ack: (ref, a) => inbound.ack(ref, a),
    async lids(ref, pairs, source) {
      await lids.learn(ref, pairs, source);
      await inbound.lids?.(ref, pairs, source);
    },
  };
}
