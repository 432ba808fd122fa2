import { z } from 'zod';

/**
 * The update schema of a PUT: every field optional and, unlike `.partial()` of an input schema, without
 * the input's defaults. `Input.partial()` still fills `profile: 'user'` or `status: true` for fields the
 * client did not send, so a rename would silently demote an admin or reactivate a company.
 */
export function patchSchema<S extends z.ZodObject>(schema: S): S {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    let inner: z.ZodType = field;
    while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault)
      inner = (inner instanceof z.ZodOptional ? inner.unwrap() : inner.removeDefault()) as z.ZodType;
    shape[key] = inner.optional();
  }
  // Same output type as the partial schema it replaces: every key optional.
  return z.object(shape) as unknown as S;
}
