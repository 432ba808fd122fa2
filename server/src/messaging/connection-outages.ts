import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { whatsapps } from '../db/schema/index.js';
import { connectionOutages } from '../db/schema/connection-recovery.js';
import { executeRows } from '../db/rows.js';

/**
 * #33.3 A connection's outages (docs/messaging.md, "Recovering the gap"). Called with every state a channel
 * reports, BEFORE the connection's row takes it: leaving CONNECTED opens an outage (at most one open per
 * connection, a unique index), coming back to CONNECTED closes it. The messages recovered afterwards carry the
 * outage's id; a process killed while CONNECTED leaves the row CONNECTED, so the next owner's first state
 * (OPENING) opens the outage then.
 */
export async function trackOutage(db: Db, ref: { id: number; companyId: number }, status: string) {
  if (status === 'CONNECTED') {
    await db
      .update(connectionOutages)
      .set({ endedAt: new Date() })
      .where(and(eq(connectionOutages.whatsappId, ref.id), isNull(connectionOutages.endedAt)));
    return;
  }
  await db.execute(sql`insert into connection_outages (company_id, whatsapp_id, started_at)
    select ${ref.companyId}, ${ref.id}, now() from ${whatsapps}
    where ${whatsapps.id} = ${ref.id} and ${whatsapps.companyId} = ${ref.companyId}
      and ${whatsapps.status} = 'CONNECTED'
    on conflict (whatsapp_id) where ended_at is null do nothing`);
}

/**
 * #33.3 Connections left CONNECTED that nobody runs: their process died (its lease ran out) or stopped (it
 * released the lease, noting when). Their outage began when the owner was last heard — the lease's last renewal
 * (its expiry minus its length), or the release — not when a process takes them over, which may be hours later
 * after a whole server was down. Run by each session-manager tick before it claims connections.
 */
export async function openOrphanOutages(db: Db, leaseMs: number) {
  await db.execute(sql`insert into connection_outages (company_id, whatsapp_id, started_at)
    select company_id, id, least(now(), coalesce(case when lease_owner is null then lease_expires_at
        else lease_expires_at - ${`${leaseMs} milliseconds`}::interval end, now()))
    from ${whatsapps}
    where status = 'CONNECTED' and (lease_owner is null or lease_expires_at < now())
    on conflict (whatsapp_id) where ended_at is null do nothing`);
}

export interface Recovery {
  count: number;
  startedAt: string;
  endedAt: string;
}

/**
 * The last closed outage of each connection given that recovered messages, with how many were stored as
 * recovered after it (counted from the messages themselves, through their partial index).
 */
export async function lastRecoveries(
  db: Db,
  companyId: number,
  ids: number[],
): Promise<Map<number, Recovery>> {
  const out = new Map<number, Recovery>();
  if (!ids.length) return out;
  const recovered = (o: string) =>
    sql.raw(`from messages m where m.data ? 'recovery' and (m.data->>'recovery')::int = ${o}.id
      and m.whatsapp_id = ${o}.whatsapp_id`);
  const rows = await executeRows<{
    whatsapp_id: number;
    started_at: string | Date;
    ended_at: string | Date;
    count: number;
  }>(
    db,
    sql`select o.whatsapp_id, o.started_at, o.ended_at, (select count(*)::int ${recovered('o')}) as count
      from (select distinct on (whatsapp_id) * from connection_outages x
        where x.company_id = ${companyId} and x.whatsapp_id in (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )})
          and x.ended_at is not null and exists (select 1 ${recovered('x')})
        order by whatsapp_id, id desc) o`,
  );
  const iso = (v: string | Date) => new Date(v).toISOString();
  for (const r of rows)
    out.set(r.whatsapp_id, { count: r.count, startedAt: iso(r.started_at), endedAt: iso(r.ended_at) });
  return out;
}
