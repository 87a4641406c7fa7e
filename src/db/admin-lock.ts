import type { Db, Tx } from './client.ts';

/** Serialises admin writes that check natural keys the schema cannot enforce (org names, one active grant). */
const ADMIN_LOCK = 72707370;

/** Runs `fn` in one transaction holding the admin lock. */
export function inAdminTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ADMIN_LOCK})`;
      return fn(tx);
    },
    { maxWait: 30_000, timeout: 120_000 },
  );
}
