import type { z } from 'zod';

/**
 * The one codec of the API's opaque cursors: base64url of a small JSON object.
 * Clients treat them as opaque. They are not signed: each kind's schema and
 * scope check see to it that a hand-made cursor can only point at another
 * position of something the caller may already read.
 */
export function encodeOpaqueCursor(json: object): string {
  return Buffer.from(JSON.stringify(json)).toString('base64url');
}

/** The cursor's JSON as `schema` reads it, or undefined when the text is not a cursor we could have issued. */
export function decodeOpaqueCursor<S extends z.ZodType>(value: string, schema: S, maxLength: number): z.infer<S> | undefined {
  if (value.length === 0 || value.length > maxLength || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
