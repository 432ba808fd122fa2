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
