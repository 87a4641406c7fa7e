import type { z } from 'zod';
import { formatIssues } from '../shared/zod-issues.ts';

/**
 * An error meant for the operator: the CLI prints its message (no stack) and
 * exits with code 1. Anything else escaping an admin operation is a bug or an
 * infrastructure failure and is reported as such.
 */
export class AdminError extends Error {
  override name = 'AdminError';
  constructor(
    message: string,
    /** What kind of refusal, for the api's status code (400, 403, 404, 409); the CLI prints the message either way. */
    readonly kind: 'invalid' | 'forbidden' | 'not_found' | 'conflict' = 'invalid',
  ) {
    super(message);
  }
}

export { isUniqueViolation } from '../db/errors.ts';

/** Parses `value` with `schema`, or throws an AdminError listing every issue as "what.path: message". */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new AdminError(formatIssues(parsed.error.issues, { root: what }).join('\n'));
}
