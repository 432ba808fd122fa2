import { z } from 'zod';
import { Timestamp, type Wire } from './responses.js';

/** Custom fields (#32.7, docs/productivity.md "Custom fields"): typed definitions per company and entity. */
export const CUSTOM_FIELD_ENTITIES = ['contact', 'ticket'] as const;
export type CustomFieldEntity = (typeof CUSTOM_FIELD_ENTITIES)[number];
export const CUSTOM_FIELD_TYPES = ['text', 'number', 'date', 'list', 'boolean', 'url'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

/** A company has at most this many definitions per entity. */
export const MAX_CUSTOM_FIELDS = 100;
export const MAX_CUSTOM_FIELD_TEXT = 1000;
export const MAX_CUSTOM_FIELD_OPTIONS = 100;

/** The key values are stored under: a slug (a-z, 0-9, _), unique per company and entity, fixed once created. */
export const CustomFieldKey = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(40)
  .regex(/^[a-z][a-z0-9_]*$/, 'a slug: a letter, then letters, digits or _');

const Options = z
  .array(z.string().trim().min(1).max(100))
  .max(MAX_CUSTOM_FIELD_OPTIONS)
  .refine((o) => new Set(o).size === o.length, 'options repeat');

const Label = z.string().trim().min(1).max(60);
const Order = z.number().int().min(0).max(10000);

export const CustomFieldInput = z
  .object({
    entity: z.enum(CUSTOM_FIELD_ENTITIES),
    key: CustomFieldKey,
    label: Label,
    type: z.enum(CUSTOM_FIELD_TYPES),
    /** The choices of a 'list' field (ignored by the other types). */
    options: Options.default([]),
    required: z.boolean().default(false),
    order: Order.default(0),
  })
  .refine((d) => d.type !== 'list' || d.options.length > 0, {
    message: 'a list needs options',
    path: ['options'],
  });
export type CustomFieldInput = z.input<typeof CustomFieldInput>;
export type CustomFieldInputParsed = z.infer<typeof CustomFieldInput>;

/** PUT /custom-fields/{id}: label, options, required and order change; entity, key and type never do. */
export const CustomFieldUpdate = z.object({
  label: Label.optional(),
  options: Options.optional(),
  required: z.boolean().optional(),
  order: Order.optional(),
  key: z.never({ message: 'the key cannot change' }).optional(),
  entity: z.never({ message: 'the entity cannot change' }).optional(),
  type: z.never({ message: 'the type cannot change' }).optional(),
});
export type CustomFieldUpdate = z.infer<typeof CustomFieldUpdate>;

export const CustomFieldListQuery = z.object({ entity: z.enum(CUSTOM_FIELD_ENTITIES).optional() });
export type CustomFieldListQuery = z.infer<typeof CustomFieldListQuery>;

export const CustomFieldView = z
  .looseObject({
    id: z.number(),
    entity: z.enum(CUSTOM_FIELD_ENTITIES),
    key: z.string(),
    label: z.string(),
    type: z.enum(CUSTOM_FIELD_TYPES),
    options: z.array(z.string()),
    required: z.boolean(),
    order: z.number(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'CustomFieldView' });
export type CustomFieldView = Wire<typeof CustomFieldView>;

/** A stored value: text, list, date (YYYY-MM-DD) and url as strings, numbers and yes/no as JSON. */
export type CustomFieldValue = string | number | boolean;
const Scalar = z.union([z.string().max(MAX_CUSTOM_FIELD_TEXT), z.number(), z.boolean()]);

/**
 * `customFields` on a contact or ticket write: key → value; null (or '') removes the value. Checked against the
 * company's definitions on the server (400 naming `customFields.<key>`).
 */
export const CustomFieldValuesInput = z
  .record(z.string().max(40), Scalar.nullable())
  .refine((r) => Object.keys(r).length <= MAX_CUSTOM_FIELDS, 'too many fields');
export type CustomFieldValuesInput = z.infer<typeof CustomFieldValuesInput>;

/** `customFields` on a view: what is stored. */
export const CustomFieldValues = z.record(z.string(), Scalar).meta({ id: 'CustomFieldValues' });
export type CustomFieldValues = z.infer<typeof CustomFieldValues>;

/**
 * The list filter: `customFields={"plan":"gold","vip":true}` (JSON in the query string); every pair must match
 * (jsonb containment). Values are read by the field's type ("5" is the number 5 for a number field).
 */
export const CustomFieldFilter = z
  .string()
  .max(2000)
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'a JSON object of field keys and values' });
      return z.NEVER;
    }
    const r = z.record(z.string().max(40), Scalar).safeParse(parsed);
    if (!r.success || Object.keys(r.data).length > 20) {
      ctx.addIssue({ code: 'custom', message: 'a JSON object of field keys and values' });
      return z.NEVER;
    }
    return Object.keys(r.data).length ? r.data : undefined;
  });

const URL_RE = /^https?:\/\/[^\s/$.?#][^\s]*$/i;

/**
 * One value checked against its definition: the stored value, or the reason it is refused. Shared by the
 * server (the rule) and the web forms (early feedback).
 */
export function checkCustomFieldValue(
  def: Pick<CustomFieldView, 'type' | 'options'>,
  value: unknown,
): { ok: true; value: CustomFieldValue } | { ok: false; message: string } {
  switch (def.type) {
    case 'text':
      if (typeof value !== 'string') return { ok: false, message: 'expected text' };
      if (value.length > MAX_CUSTOM_FIELD_TEXT) return { ok: false, message: 'too long' };
      return { ok: true, value: value.trim() };
    case 'number': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return { ok: false, message: 'expected a number' };
      return { ok: true, value: n };
    }
    case 'boolean':
      if (value === true || value === 'true') return { ok: true, value: true };
      if (value === false || value === 'false') return { ok: true, value: false };
      return { ok: false, message: 'expected true or false' };
    case 'date': {
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value))
        return { ok: false, message: 'expected a date YYYY-MM-DD' };
      const d = new Date(`${value}T00:00:00Z`);
      if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value)
        return { ok: false, message: 'not a date' };
      return { ok: true, value };
    }
    case 'list':
      if (typeof value !== 'string' || !def.options.includes(value))
        return { ok: false, message: `one of: ${def.options.join(', ')}` };
      return { ok: true, value };
    case 'url': {
      if (typeof value !== 'string' || value.length > MAX_CUSTOM_FIELD_TEXT || !URL_RE.test(value.trim()))
        return { ok: false, message: 'expected an http(s) URL' };
      try {
        new URL(value.trim());
      } catch {
        return { ok: false, message: 'expected an http(s) URL' };
      }
      return { ok: true, value: value.trim() };
    }
  }
}

/** A value as text (CSV, message variables): yes/no as "true"/"false" and numbers as written. */
export const customFieldText = (v: unknown): string =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : String(v);
