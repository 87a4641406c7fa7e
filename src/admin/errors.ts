import type { z } from 'zod';

/**
 * An error meant for the operator: the CLI prints its message (no stack) and
 * exits with code 1. Anything else escaping an admin operation is a bug or an
 * infrastructure failure and is reported as such.
 */
export class AdminError extends Error {
  override name = 'AdminError';
}

export { isUniqueViolation } from '../db/errors.ts';

/** Zod issues as "path: message" lines, the path prefixed with `root` when given. */
export function formatIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[], root = ''): string[] {
  return issues.map((i) => {
    const path = [root, ...i.path.map(String)].filter(Boolean).join('.');
    return path ? `${path}: ${i.message}` : i.message;
  });
}

/** Parses `value` with `schema`, or throws an AdminError listing every issue as "what.path: message". */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new AdminError(formatIssues(parsed.error.issues, what).join('\n'));
}
