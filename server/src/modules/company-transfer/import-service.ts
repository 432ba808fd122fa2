import { createHash } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { CompanyImportReport } from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { AppError } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';
import type { Clock } from '../../lib/clock.js';
import { heapPacer } from '../../lib/heap-pacer.js';
import type { MediaStore } from '../../messaging/media-store.js';
import { recordAudit } from '../audit/record.js';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  MANIFEST,
  MEDIA_INDEX,
  TABLES,
  tableFile,
  type Manifest,
  type TableSpec,
} from './archive-spec.js';
import { FileReader, archiveError, linesOf, readTar } from './tar.js';

/** Rows inserted per statement. */
export const IMPORT_BATCH = 2000;
const MEDIA_PREFIX = 'media/files/';

type Row = Record<string, unknown>;

/**
 * Old id → new id of one table, compactly: rows come in ascending id order (the export pages by key), so two
 * growing Float64Arrays and a binary search (16 bytes a row: 1,000,000 messages ≈ 16 MB) instead of a Map
 * (≈ 80 bytes a row); an id out of order (never from our exports) goes to a Map beside.
 */
export class IdMap {
  private olds = new Float64Array(1024);
  private news = new Float64Array(1024);
  private n = 0;
  private other = new Map<unknown, number>();
  set(old: unknown, to: number) {
    const o = typeof old === 'string' && /^\d+$/.test(old) ? Number(old) : old;
    if (typeof o !== 'number' || (this.n && o <= this.olds[this.n - 1]!)) {
      this.other.set(o, to);
      return;
    }
    if (this.n === this.olds.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.olds = grow(this.olds);
      this.news = grow(this.news);
    }
    this.olds[this.n] = o;
    this.news[this.n++] = to;
  }
  get(old: unknown): number | undefined {
    const o = typeof old === 'string' && /^\d+$/.test(old) ? Number(old) : old;
    if (typeof o === 'number') {
      let lo = 0;
      let hi = this.n - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const v = this.olds[mid]!;
        if (v === o) return this.news[mid];
        if (v < o) lo = mid + 1;
        else hi = mid - 1;
      }
    }
    return this.other.get(o);
  }
}
const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Reads the whole archive once without writing anything: the manifest first (format, version), then every
 * file's SHA-256, size and line count against it, every media file against the media index. (Each line's JSON
 * is parsed by the import, in its transaction: a line that is not JSON fails it as ERR_ARCHIVE_CORRUPT.)
 * Throws ERR_ARCHIVE_* naming the file (and line); answers the manifest.
 */
export async function verifyArchive(path: string): Promise<Manifest> {
  const pace = heapPacer();
  let manifest: Manifest | undefined;
  const seen = new Set<string>();
  let mediaIndex: { offset: number; size: number } | undefined;
  let indexLines: AsyncGenerator<{ line: string; n: number }> | undefined;
  let indexReader: { close(): Promise<void> } | undefined;
  let mediaSeen = 0;
  try {
    for await (const entry of readTar(path)) {
      if (!manifest) {
        if (entry.name !== MANIFEST)
          throw archiveError('ERR_ARCHIVE_CORRUPT', `the archive must start with ${MANIFEST}`, {
            file: entry.name,
          });
        const chunks: Buffer[] = [];
        for await (const c of entry.body()) chunks.push(c);
        try {
          manifest = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Manifest;
        } catch {
          throw archiveError('ERR_ARCHIVE_CORRUPT', `${MANIFEST} is not JSON`, { file: MANIFEST });
        }
        if (manifest?.format !== ARCHIVE_FORMAT || typeof manifest.version !== 'number' || !manifest.tables)
          throw archiveError('ERR_ARCHIVE_CORRUPT', `${MANIFEST} is not a Recado archive's`, {
            file: MANIFEST,
          });
        if (manifest.version > ARCHIVE_VERSION)
          throw archiveError(
            'ERR_ARCHIVE_VERSION',
            `format version ${manifest.version}; this install reads up to ${ARCHIVE_VERSION}`,
            { file: MANIFEST },
          );
        continue;
      }
      const table = Object.entries(manifest.tables).find(([, t]) => t.file === entry.name);
      if (table || entry.name === MEDIA_INDEX) {
        const expected = table ? table[1] : manifest.media;
        const h = createHash('sha256');
        let rows = 0;
        const hashed = async function* () {
          for await (const c of entry.body()) {
            h.update(c);
            yield c;
          }
        };
        // Lines are counted here; each is parsed by the import itself (a line that is not JSON fails it, named).
        for await (const c of hashed()) {
          for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) rows++;
          await pace();
        }
        const expectedRows = table ? table[1].rows : manifest.media.files;
        if (h.digest('hex') !== expected.sha256 || entry.size !== expected.bytes || rows !== expectedRows)
          throw archiveError('ERR_ARCHIVE_TAMPERED', `${entry.name} does not match the manifest's checksum`, {
            file: entry.name,
            table: table?.[0],
          });
        seen.add(entry.name);
        if (!table) mediaIndex = { offset: entry.dataOffset, size: entry.size };
        continue;
      }
      if (entry.name.startsWith(MEDIA_PREFIX)) {
        if (!mediaIndex)
          throw archiveError('ERR_ARCHIVE_CORRUPT', `${entry.name} comes before ${MEDIA_INDEX}`, {
            file: entry.name,
          });
        if (!indexLines) {
          // A second reader walks the media index in step with the files (they are in its order).
          const fh = await open(path, 'r');
          indexReader = fh;
          const reader = new FileReader(fh, mediaIndex.offset);
          let left = mediaIndex.size;
          indexLines = linesOf(
            (async function* () {
              while (left > 0) {
                const b = await reader.read(Math.min(left, 64 * 1024));
                if (!b.length) return;
                left -= b.length;
                yield b;
              }
            })(),
          );
        }
        const next = await indexLines.next();
        const want = next.done
          ? undefined
          : (JSON.parse(next.value.line) as { path: string; sha256: string });
        const h = createHash('sha256');
        for await (const c of entry.body()) h.update(c);
        if (!want || MEDIA_PREFIX + want.path !== entry.name || h.digest('hex') !== want.sha256)
          throw archiveError('ERR_ARCHIVE_TAMPERED', `${entry.name} does not match the media index`, {
            file: entry.name,
          });
        mediaSeen++;
        continue;
      }
      throw archiveError('ERR_ARCHIVE_CORRUPT', `unexpected file ${entry.name}`, { file: entry.name });
    }
  } finally {
    await indexReader?.close();
  }
  if (!manifest) throw archiveError('ERR_ARCHIVE_TRUNCATED', 'the archive is empty', { file: MANIFEST });
  for (const [name, t] of Object.entries(manifest.tables))
    if (!seen.has(t.file))
      throw archiveError('ERR_ARCHIVE_TRUNCATED', `${t.file} is missing`, { file: t.file, table: name });
  if (!seen.has(MEDIA_INDEX) || mediaSeen !== manifest.media.files)
    throw archiveError(
      'ERR_ARCHIVE_TRUNCATED',
      `media files missing (${mediaSeen} of ${manifest.media.files})`,
      {
        file: MEDIA_INDEX,
      },
    );
  return manifest;
}

export interface CompanyImportDeps {
  db: Db;
  media: MediaStore;
  clock: Clock;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
}

/**
 * #35.4 Imports a verified archive as a new company, in ONE transaction: every row goes in with a new id and
 * its references remapped through per-table maps (old id → new id, numbers only: ~50 bytes a row), in
 * batches of IMPORT_BATCH read from the archive as it streams. A failure rolls everything back and removes
 * the media files written so far; nothing is half-imported (docs/migration.md).
 */
export function companyImportService(deps: CompanyImportDeps) {
  const { db, media, clock } = deps;

  async function columnsOf(tx: Tx, table: string) {
    const rows = await executeRows<{ c: string }>(
      tx as unknown as Db,
      // Generated columns (messages.body_search) are computed by the database, never written.
      sql`select column_name as c from information_schema.columns where table_schema = current_schema()
        and table_name = ${table} and is_generated = 'NEVER'`,
    );
    return new Set(rows.map((r) => r.c));
  }

  async function newIds(tx: Tx, table: string, n: number): Promise<number[]> {
    const rows = await executeRows<{ id: string | number }>(
      tx as unknown as Db,
      sql`select nextval(pg_get_serial_sequence(${q(table)}, 'id')) as id from generate_series(1, ${n})`,
    );
    return rows.map((r) => Number(r.id));
  }

  async function importArchive(t: Tenant, path: string): Promise<CompanyImportReport> {
    if (!t.super) throw new AppError('ERR_NO_PERMISSION', 403);
    const started = Date.now();
    const manifest = await verifyArchive(path);
    // The batches' garbage collected as it goes (lib/heap-pacer.ts): the RSS stays near the live size.
    const pace = heapPacer();
    let newCompany = 0;
    let companyName = '';
    const counts: Record<string, number> = {};
    const renamedUsers: CompanyImportReport['renamedUsers'] = [];
    const notes: string[] = [];
    let mediaFiles = 0;
    const oldPrefix = `${manifest.company.id}/`;
    const remapPath = (p: unknown) =>
      typeof p === 'string' && p.startsWith(oldPrefix) ? `${newCompany}/${p.slice(oldPrefix.length)}` : p;
    try {
      await db.transaction(async (tx) => {
        const maps = new Map<string, IdMap>();
        const pending: { table: string; column: string; id: number; old: unknown }[] = [];
        const exec = (query: ReturnType<typeof sql>) => executeRows(tx as unknown as Db, query);
        const columns = new Map<string, Set<string>>();

        async function insertBatch(spec: TableSpec, rows: Row[], firstLine: number) {
          let cols = columns.get(spec.name);
          if (!cols) columns.set(spec.name, (cols = await columnsOf(tx, spec.name)));
          const ids = spec.id ? await newIds(tx, spec.name, rows.length) : [];
          const map = maps.get(spec.name) ?? new IdMap();
          maps.set(spec.name, map);
          const out: Row[] = [];
          if (spec.name === 'users') {
            const emails = rows.map((r) => String(r.email ?? '').toLowerCase());
            const taken = new Set(
              (
                await exec(
                  sql`select lower(email) as e from users where lower(email) in (${sql.join(
                    emails.map((e) => sql`${e}`),
                    sql`, `,
                  )})`,
                )
              ).map((r) => String(r.e)),
            );
            for (const r of rows) {
              const old = String(r.email ?? '');
              if (!taken.has(old.toLowerCase())) continue;
              const at = old.lastIndexOf('@');
              const renamed =
                at > 0
                  ? `${old.slice(0, at)}+imported${newCompany}${old.slice(at)}`
                  : `${old}+imported${newCompany}`;
              renamedUsers.push({ old, new: renamed });
              r.email = renamed;
            }
          }
          rows.forEach((r, i) => {
            const o: Row = {};
            for (const [k, v] of Object.entries(r)) if (cols.has(k)) o[k] = v;
            if (spec.id) {
              map.set(r.id, ids[i]!);
              o.id = ids[i]!;
            }
            if (spec.name === 'companies') {
              newCompany = ids[i]!;
            } else if ('company_id' in o) {
              o.company_id = newCompany;
            }
            for (const [col, target] of Object.entries(spec.refs ?? {}))
              if (o[col] != null) o[col] = maps.get(target)?.get(o[col]) ?? null;
            if (spec.self && o[spec.self] != null) {
              const to = map.get(o[spec.self]);
              if (to === undefined)
                pending.push({ table: spec.name, column: spec.self, id: o.id as number, old: o[spec.self] });
              o[spec.self] = to ?? null;
            }
            for (const [col, v] of Object.entries(spec.reset ?? {})) if (cols.has(col)) o[col] = v;
            for (const col of spec.media ?? []) if (o[col] != null) o[col] = remapPath(o[col]);
            out.push(o);
          });
          if (spec.name === 'companies') {
            const o = out[0]!;
            const [clash] = await exec(
              sql`select 1 from companies where lower(name) = lower(${String(o.name)})`,
            );
            if (clash) {
              o.name = `${String(o.name)} (import ${newCompany})`;
              notes.push(
                `a company named "${String(r0(rows).name)}" exists here: imported as "${String(o.name)}"`,
              );
            }
            const [plan] = await exec(sql`select id from plans where id = ${Number(o.plan_id ?? 0)}`);
            if (!plan) {
              const [first] = await exec(sql`select min(id) as id from plans`);
              o.plan_id = first?.id ?? null;
              notes.push('the plan does not exist here: the first plan was given');
            }
            companyName = String(o.name);
          }
          const names = [...new Set(out.flatMap((o) => Object.keys(o)))];
          const list = names.map(q).join(', ');
          try {
            await exec(
              sql`insert into ${sql.raw(q(spec.name))} (${sql.raw(list)}) select ${sql.raw(list)}
                from json_populate_recordset(null::${sql.raw(q(spec.name))}, ${JSON.stringify(out)}::json)`,
            );
          } catch (err) {
            const cause = (err as { cause?: Error }).cause ?? (err as Error);
            throw new AppError('ERR_IMPORT_FAILED', 422, `${spec.name}: ${cause.message}`, {
              details: { file: tableFile(spec.name), table: spec.name, line: firstLine },
            });
          }
          counts[spec.name] = (counts[spec.name] ?? 0) + out.length;
        }
        const r0 = (rows: Row[]) => rows[0] ?? {};

        for await (const entry of readTar(path)) {
          if (entry.name === MANIFEST || entry.name === MEDIA_INDEX) continue;
          if (entry.name.startsWith(MEDIA_PREFIX)) {
            const target = remapPath(entry.name.slice(MEDIA_PREFIX.length)) as string;
            if (!media.belongsTo(target, newCompany)) continue;
            const full = media.fullPath(target);
            await mkdir(dirname(full), { recursive: true });
            const fh = await open(full, 'w');
            try {
              for await (const c of entry.body()) await fh.write(c);
            } finally {
              await fh.close();
            }
            mediaFiles++;
            continue;
          }
          const spec = TABLES.find((s) => tableFile(s.name) === entry.name);
          if (!spec) {
            notes.push(`${entry.name}: a table this install does not import, skipped`);
            continue;
          }
          if (spec.name !== 'companies' && !newCompany)
            throw archiveError('ERR_ARCHIVE_CORRUPT', 'the company comes first', { file: entry.name });
          let batch: Row[] = [];
          let first = 1;
          for await (const { line, n } of linesOf(entry.body())) {
            try {
              batch.push(JSON.parse(line) as Row);
            } catch {
              throw archiveError('ERR_ARCHIVE_CORRUPT', `${entry.name} line ${n} is not JSON`, {
                file: entry.name,
                table: spec.name,
                line: n,
              });
            }
            if (batch.length >= IMPORT_BATCH) {
              await insertBatch(spec, batch, first);
              batch = [];
              first = n + 1;
              await pace();
            }
          }
          if (batch.length) await insertBatch(spec, batch, first);
          if (spec.name === 'companies' && !newCompany)
            throw archiveError('ERR_ARCHIVE_CORRUPT', 'the archive has no company', { file: entry.name });
          counts[spec.name] ??= 0;
        }
        // Self references to rows that came later (a quote of a later message, a child option before its parent).
        for (const p of pending) {
          const to = maps.get(p.table)?.get(p.old);
          if (to !== undefined)
            await exec(
              sql`update ${sql.raw(q(p.table))} set ${sql.raw(q(p.column))} = ${to} where id = ${p.id}`,
            );
        }
        for (const [name, tm] of Object.entries(manifest.tables))
          if (TABLES.some((s) => s.name === name) && (counts[name] ?? 0) !== tm.rows)
            throw new AppError('ERR_IMPORT_FAILED', 422, `${name}: ${counts[name] ?? 0} rows of ${tm.rows}`, {
              details: { file: tm.file, table: name },
            });
        if (counts.whatsapps)
          notes.push(
            `${counts.whatsapps} connection(s) imported DISCONNECTED: each needs a new QR scan or credentials`,
          );
        if (counts.users)
          notes.push(`${counts.users} user(s) have no password: each chooses one with "forgot password"`);
        await recordAudit(tx, {
          companyId: null,
          actorId: t.userId,
          action: 'company.imported',
          targetType: 'company',
          targetId: newCompany,
          after: {
            source: manifest.source,
            sourceCompanyId: manifest.company.id,
            tables: counts,
            mediaFiles,
          },
        });
      });
    } catch (err) {
      if (newCompany) await rm(join(media.root, String(newCompany)), { recursive: true, force: true });
      if (err instanceof AppError) throw err;
      const cause = (err as { cause?: Error }).cause ?? (err as Error);
      deps.log.warn({ err: cause.message }, 'company import failed');
      throw new AppError('ERR_IMPORT_FAILED', 422, cause.message);
    }
    deps.log.info({ companyId: newCompany, tables: counts }, 'company imported');
    void clock;
    return {
      ok: true,
      companyId: newCompany,
      companyName,
      source: {
        install: manifest.source.install,
        app: manifest.source.app,
        companyId: manifest.company.id,
        createdAt: manifest.createdAt,
      },
      tables: counts,
      mediaFiles,
      renamedUsers,
      notes,
      durationMs: Date.now() - started,
    };
  }

  return { importArchive };
}
export type CompanyImportService = ReturnType<typeof companyImportService>;
