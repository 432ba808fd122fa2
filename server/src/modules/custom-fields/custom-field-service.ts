import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import {
  MAX_CUSTOM_FIELDS,
  checkCustomFieldValue,
  type CustomFieldEntity,
  type CustomFieldInputParsed,
  type CustomFieldListQuery,
  type CustomFieldUpdate,
  type CustomFieldValue,
  type CustomFieldValuesInput,
  type CustomFieldView,
} from '@recado/contracts';
import type { Db, Tx } from '../../db/client.js';
import { contacts, customFieldDefinitions, tickets } from '../../db/schema/index.js';
import { AppError, isUniqueViolation } from '../../http/errors.js';
import type { Tenant } from '../../http/tenant.js';

type Row = typeof customFieldDefinitions.$inferSelect;
const UNIQUE_KEY = 'custom_field_definitions_key_uq';

export const customFieldView = (r: Row): CustomFieldView => ({
  id: r.id,
  entity: r.entity,
  key: r.key,
  label: r.label,
  type: r.type,
  options: r.options ?? [],
  required: r.required,
  order: r.order,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

/** A bad value, named as the schemas name fields: 400 ERR_VALIDATION with `customFields.<key>`. */
const fieldError = (key: string, message: string) => {
  const path = `customFields.${key}`;
  return new AppError('ERR_VALIDATION', 400, `${path}: ${message}`, { fields: [{ path, message }] });
};

/** The company's definitions of one entity, in display order. */
export async function customFieldDefinitionsOf(
  db: Db | Tx,
  companyId: number,
  entity: CustomFieldEntity,
): Promise<CustomFieldView[]> {
  const rows = await db
    .select()
    .from(customFieldDefinitions)
    .where(and(eq(customFieldDefinitions.companyId, companyId), eq(customFieldDefinitions.entity, entity)))
    .orderBy(asc(customFieldDefinitions.order), asc(customFieldDefinitions.id));
  return rows.map(customFieldView);
}

/** What a write does to the stored values: keys to set and keys to remove. */
export interface CustomFieldChange {
  set: Record<string, CustomFieldValue>;
  unset: string[];
}

/**
 * Checks `customFields` of a write against the company's definitions (unknown key, wrong type, outside the
 * list, bad URL or date → 400 naming `customFields.<key>`). `creating`: required fields must be given;
 * otherwise a required field cannot be removed. null or '' removes a value.
 */
export async function checkCustomFields(
  db: Db | Tx,
  companyId: number,
  entity: CustomFieldEntity,
  input: CustomFieldValuesInput | undefined,
  creating: boolean,
): Promise<CustomFieldChange> {
  const change: CustomFieldChange = { set: {}, unset: [] };
  const sent = input ?? {};
  if (!creating && !Object.keys(sent).length) return change;
  const defs = await customFieldDefinitionsOf(db, companyId, entity);
  const byKey = new Map(defs.map((d) => [d.key, d]));
  for (const [key, value] of Object.entries(sent)) {
    const def = byKey.get(key);
    if (!def) throw fieldError(key, 'no such field');
    if (value === null || value === '') {
      if (def.required) throw fieldError(key, 'required');
      change.unset.push(key);
      continue;
    }
    const checked = checkCustomFieldValue(def, value);
    if (!checked.ok) throw fieldError(key, checked.message);
    change.set[key] = checked.value;
  }
  if (creating)
    for (const d of defs) if (d.required && !(d.key in change.set)) throw fieldError(d.key, 'required');
  return change;
}

/** The jsonb expression a write stores: the column with the change applied (atomic, no read-modify-write). */
export const applyCustomFields = (column: AnyPgColumn, change: CustomFieldChange): SQL =>
  sql`((${column} || ${JSON.stringify(change.set)}::jsonb) - ${sql`array[${sql.join(
    change.unset.map((k) => sql`${k}`),
    sql`, `,
  )}]::text[]`})`;

export const hasCustomFieldChange = (c: CustomFieldChange) =>
  Object.keys(c.set).length > 0 || c.unset.length > 0;

/**
 * A list filter (`customFields={"k":v}`) as a containment test on the GIN-indexed column; each value is read
 * by its field's type, and an unknown key is a 400 naming it.
 */
export async function customFieldFilterWhere(
  db: Db,
  companyId: number,
  entity: CustomFieldEntity,
  column: AnyPgColumn,
  filter: Record<string, CustomFieldValue> | undefined,
  rareMatches = RARE_MATCHES,
): Promise<SQL | undefined> {
  if (!filter) return undefined;
  const defs = new Map((await customFieldDefinitionsOf(db, companyId, entity)).map((d) => [d.key, d]));
  const wanted: Record<string, CustomFieldValue> = {};
  for (const [key, value] of Object.entries(filter)) {
    const def = defs.get(key);
    if (!def) throw fieldError(key, 'no such field');
    const checked = checkCustomFieldValue(
      def,
      def.type === 'text' || def.type === 'url' ? String(value) : value,
    );
    if (!checked.ok) throw fieldError(key, checked.message);
    wanted[key] = checked.value;
  }
  const contains = sql`${column} @> ${JSON.stringify(wanted)}::jsonb`;
  // The planner estimates a containment from the column's statistics, which hold whole documents: a rare value
  // that happens to be in the sample is taken for a common one, and the list is read by walking its order
  // index, filtering thousands of rows (docs/benchmarks.md, "Lists with custom-field filters"). So the GIN
  // index is asked first, for at most rareMatches + 1 rows: a rare value's few ids become the filter (read by
  // primary key, then sorted); a common value keeps the containment, which the order-index walk serves well.
  // A value found common lately is not asked about again for a while: the containment it gets is the filter's
  // meaning whatever the count (only a rare value's ids must be fresh), and asking costs a common value the
  // reading of rareMatches + 1 rows (≈3 ms for one in a third of 100,000 tickets, on every list).
  const key = `${companyId}\u0000${entity}\u0000${rareMatches}\u0000${JSON.stringify(wanted)}`;
  if ((commonFilters.get(key) ?? 0) > Date.now()) return contains;
  const table = entity === 'ticket' ? tickets : contacts;
  const ids = await db
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.companyId, companyId), contains))
    .limit(rareMatches + 1);
  if (ids.length > rareMatches) {
    if (commonFilters.size >= COMMON_FILTERS_KEPT) commonFilters.clear();
    commonFilters.set(key, Date.now() + COMMON_FOR_MS);
    return contains;
  }
  return ids.length
    ? inArray(
        table.id,
        ids.map((r) => r.id),
      )
    : sql`false`;
}

/** Up to this many matches, a custom-field filter is applied as the matching ids (customFieldFilterWhere). */
const RARE_MATCHES = 2000;
/** How long a filter found common is applied as the containment without asking again, and how many are kept. */
const COMMON_FOR_MS = 60_000;
const COMMON_FILTERS_KEPT = 1000;
const commonFilters = new Map<string, number>();

const optionsFor = (type: string, options: string[]) => (type === 'list' ? options : []);

/** GET/POST/PUT/DELETE /custom-fields: a company's definitions (admins write, everyone reads). */
export function customFieldService({ db }: { db: Db }) {
  async function row(companyId: number, id: number): Promise<Row> {
    const [r] = await db
      .select()
      .from(customFieldDefinitions)
      .where(and(eq(customFieldDefinitions.id, id), eq(customFieldDefinitions.companyId, companyId)));
    if (!r) throw new AppError('ERR_NOT_FOUND', 404, 'Custom field not found');
    return r;
  }

  return {
    async list(t: Tenant, q: CustomFieldListQuery): Promise<CustomFieldView[]> {
      const rows = await db
        .select()
        .from(customFieldDefinitions)
        .where(
          and(
            eq(customFieldDefinitions.companyId, t.companyId),
            q.entity ? eq(customFieldDefinitions.entity, q.entity) : undefined,
          ),
        )
        .orderBy(
          asc(customFieldDefinitions.entity),
          asc(customFieldDefinitions.order),
          asc(customFieldDefinitions.id),
        );
      return rows.map(customFieldView);
    },

    async get(t: Tenant, id: number): Promise<CustomFieldView> {
      return customFieldView(await row(t.companyId, id));
    },

    async create(t: Tenant, input: CustomFieldInputParsed): Promise<CustomFieldView> {
      const [{ n } = { n: 0 }] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(customFieldDefinitions)
        .where(
          and(
            eq(customFieldDefinitions.companyId, t.companyId),
            eq(customFieldDefinitions.entity, input.entity),
          ),
        );
      if (n >= MAX_CUSTOM_FIELDS)
        throw new AppError('ERR_VALIDATION', 400, `At most ${MAX_CUSTOM_FIELDS} fields`, {
          fields: [{ path: 'entity', message: 'too many fields' }],
        });
      try {
        const [r] = await db
          .insert(customFieldDefinitions)
          .values({
            companyId: t.companyId,
            entity: input.entity,
            key: input.key,
            label: input.label,
            type: input.type,
            options: optionsFor(input.type, input.options),
            required: input.required,
            order: input.order,
          })
          .returning();
        return customFieldView(r!);
      } catch (err) {
        if (isUniqueViolation(err, UNIQUE_KEY))
          throw new AppError('ERR_VALIDATION', 409, 'key: a field with this key exists', {
            fields: [{ path: 'key', message: 'a field with this key exists' }],
          });
        throw err;
      }
    },

    async update(t: Tenant, id: number, input: CustomFieldUpdate): Promise<CustomFieldView> {
      const current = await row(t.companyId, id);
      if (current.type === 'list' && input.options !== undefined && input.options.length === 0)
        throw new AppError('ERR_VALIDATION', 400, 'options: a list needs options', {
          fields: [{ path: 'options', message: 'a list needs options' }],
        });
      const [r] = await db
        .update(customFieldDefinitions)
        .set({
          label: input.label,
          options: input.options === undefined ? undefined : optionsFor(current.type, input.options),
          required: input.required,
          order: input.order,
          updatedAt: new Date(),
        })
        .where(and(eq(customFieldDefinitions.id, id), eq(customFieldDefinitions.companyId, t.companyId)))
        .returning();
      return customFieldView(r!);
    },

    /** Deleting a definition removes its values from the company's contacts or tickets, in one transaction. */
    async remove(t: Tenant, id: number) {
      const current = await row(t.companyId, id);
      await db.transaction(async (tx) => {
        await tx
          .delete(customFieldDefinitions)
          .where(and(eq(customFieldDefinitions.id, id), eq(customFieldDefinitions.companyId, t.companyId)));
        const table = current.entity === 'contact' ? contacts : tickets;
        await tx
          .update(table)
          .set({ customFields: sql`${table.customFields} - ${current.key}::text` })
          .where(
            and(
              eq(table.companyId, t.companyId),
              sql`(${table.customFields} -> ${current.key}::text) is not null`,
            ),
          );
      });
      return { message: 'Custom field deleted' };
    },
  };
}
export type CustomFieldService = ReturnType<typeof customFieldService>;
