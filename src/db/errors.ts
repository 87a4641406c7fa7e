/**
 * "Unique constraint failed", raised when a concurrent writer won a race: Prisma's P2002, or
 * PostgreSQL's 23505 from a statement on the pg pool (src/db/sql.ts).
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return code === 'P2002' || code === '23505';
}
