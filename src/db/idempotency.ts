import type { Db, DbOrTx } from './client.ts';
import { sqlOfPool, type Sql } from './sql.ts';

/** Whose key it is: keys are scoped to an org and a user. */
export interface KeyOwner {
  orgId: string;
  userId: string;
}

export async function findIdempotencyKey(db: DbOrTx, owner: KeyOwner, key: string) {
  return db.idempotencyKey.findUnique({
    where: { orgId_userId_key: { orgId: owner.orgId, userId: owner.userId, key } },
  });
}

/**
 * Stores a key for the run being created, in the transaction that creates it, replacing
 * an expired row of the same key (created before `expiredBefore`). A live row of the key
 * makes the insert violate the primary key, and the caller's transaction rolls back.
 */
export async function storeIdempotencyKey(
  sql: Sql,
  row: KeyOwner & { key: string; requestHash: string; runId: string },
  expiredBefore: Date,
): Promise<void> {
  await sql.query('DELETE FROM idempotency_keys WHERE org_id = $1 AND user_id = $2 AND key = $3 AND created_at < $4', [
    row.orgId,
    row.userId,
    row.key,
    expiredBefore,
  ]);
  await sql.query(
    'INSERT INTO idempotency_keys (org_id, user_id, key, request_hash, run_id) VALUES ($1, $2, $3, $4, $5)',
    [row.orgId, row.userId, row.key, row.requestHash, row.runId],
  );
}

/** Deletes the keys that point at a run. */
export async function deleteIdempotencyKeysOfRun(tx: DbOrTx, runId: string): Promise<void> {
  await tx.idempotencyKey.deleteMany({ where: { runId } });
}

/** Deletes every key created before `expiredBefore`; returns how many. */
export async function purgeIdempotencyKeys(db: Db, expiredBefore: Date): Promise<number> {
  return (await sqlOfPool(db).query('DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING 1', [expiredBefore]))
    .length;
}
