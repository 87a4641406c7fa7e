import type { z } from 'zod';
import { DomainError, type DomainErrorKind } from '../shared/domain-error.ts';
import { formatIssues } from '../shared/zod-issues.ts';

/**
 * An error meant for the operator: the CLI prints its message (no stack) and
 * exits with code 1; the api answers it by its kind (400, 403, 404, 409) like
 * any other refusal. Anything else escaping an admin operation is a bug or an
 * infrastructure failure and is reported as such.
 */
export class AdminError extends DomainError {
  override name = 'AdminError';
  constructor(
    message: string,
    kind: Extract<DomainErrorKind, 'invalid' | 'forbidden' | 'not_found' | 'conflict'> = 'invalid',
  ) {
    super(kind, message);
  }
}

export { isUniqueViolation } from '../db/errors.ts';

/** Parses `value` with `schema`, or throws an AdminError listing every issue as "what.path: message". */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new AdminError(formatIssues(parsed.error.issues, { root: what }).join('\n'));
}
