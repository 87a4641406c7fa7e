/** Prisma's "unique constraint failed" error, raised when a concurrent writer won a race. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'P2002';
}
