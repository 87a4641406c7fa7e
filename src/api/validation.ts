import type { z } from 'zod';
import { validationError } from './errors.ts';

/** Parses a request part with a zod schema, or throws the spec's 422. */
export function parse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' | 'path' | 'header',
): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(where, result.error);
  return result.data;
}
