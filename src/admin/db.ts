import type { Db, DbOrTx, Tx } from '../db/client.ts';

/** Admin operations run either on the client or inside one of its transactions. */
export type DbClient = DbOrTx;

/** Serialises admin writes that check natural keys the schema cannot enforce (org names). */
const ADMIN_LOCK = 72707370;

export async function lockAdmin(tx: Tx): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ADMIN_LOCK})`;
}

/** Runs `fn` in one transaction holding the admin lock. */
export function inAdminTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await lockAdmin(tx);
      return fn(tx);
    },
    { maxWait: 30_000, timeout: 120_000 },
  );
}
