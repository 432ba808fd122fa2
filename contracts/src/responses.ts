import { z } from 'zod';

/**
 * Response schemas shared by many routes (docs/api.md). A route's 2xx answer is declared with one of these
 * or a precise schema; the zod serializer checks answers against them, so the loose ones accept what the
 * service returns (extra fields pass through) while the OpenAPI document still says "an object"/"a list".
 */
export const JsonObject = z.looseObject({}).meta({ id: 'JsonObject', description: 'A JSON object.' });
export const JsonList = z.array(z.unknown()).meta({ id: 'JsonList', description: 'A JSON array.' });
/** An object or a list (or null): routes whose answer is not described more precisely yet. */
export const JsonAnswer: z.ZodType<unknown> = z
  .union([JsonObject, JsonList, z.null()])
  .meta({ id: 'JsonAnswer', description: 'A JSON object or list (not described in detail yet).' });
/** `{ message }`: deletions and other answers that only confirm. */
export const MessageAnswer = z.looseObject({ message: z.string() }).meta({ id: 'MessageAnswer' });
/** A paged list: `{ <items>: [...], count, hasMore }` (the item field is the resource's list field). */
export const PageAnswer = z.looseObject({ count: z.number(), hasMore: z.boolean() });

/** A file's bytes (media, exports): not JSON, never serialized. */
export const FileAnswer = z.unknown().meta({ id: 'File', description: 'The file itself (binary or text).' });

/**
 * A moment in an answer: services hand the serializer Dates (rows) or ISO strings (views); both go out as
 * the ISO string, which is what clients read (`Wire<>` types it as a string).
 */
export const Timestamp = z.codec(z.string(), z.union([z.date(), z.string()]), {
  decode: (s) => s,
  encode: (v) => (v instanceof Date ? v.toISOString() : v),
});

/** The named keys of an object type (drops a looseObject's `[key: string]: unknown`). */
type Known<T> = { [K in keyof T as string extends K ? never : K]: T[K] };
/** Removes catch-all indexes at every depth, except on plain records (nothing but the index). */
type StripIndex<T> = T extends string | number | boolean | null | undefined | Date
  ? T
  : T extends readonly (infer U)[]
    ? StripIndex<U>[]
    : [keyof Known<T>] extends [never]
      ? T
      : { [K in keyof Known<T>]: StripIndex<Known<T>[K]> };
/**
 * The shape a client receives for an answer schema: Timestamps as strings and no catch-all index (the
 * schemas are loose so the serializer keeps fields they do not name, but clients read the named ones).
 */
export type Wire<T extends z.ZodObject> = StripIndex<z.input<T>>;

/** A paged list `{ <field>: Item[], count, hasMore }` (count is absent on a few lists: see `hasMoreOf`). */
export const pageOf = <K extends string, T extends z.ZodType>(field: K, item: T) =>
  z.looseObject({ [field]: z.array(item), count: z.number(), hasMore: z.boolean() } as {
    [P in K]: z.ZodArray<T>;
  } & { count: z.ZodNumber; hasMore: z.ZodBoolean });

/** A paged list without a total: `{ <field>: Item[], hasMore }`. */
export const hasMoreOf = <K extends string, T extends z.ZodType>(field: K, item: T) =>
  z.looseObject({ [field]: z.array(item), hasMore: z.boolean() } as { [P in K]: z.ZodArray<T> } & {
    hasMore: z.ZodBoolean;
  });

/** `{ <field>: Item[] }`: a whole list under one key. */
export const listOf = <K extends string, T extends z.ZodType>(field: K, item: T) =>
  z.looseObject({ [field]: z.array(item) } as { [P in K]: z.ZodArray<T> });

/**
 * One of `values`, as documented and typed, but any string passes the serializer: the column is plain text,
 * and a value stored before a list changed must not turn a whole answer into a 500.
 */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.string().meta({ enum: [...values] }) as unknown as z.ZodType<T[number], T[number]>;
