import { findIdempotencyKey, purgeIdempotencyKeys } from '../../db/idempotency.ts';
import type { ApiDeps } from '../deps.ts';
import { invalidField } from '../../shared/domain-error.ts';
import type { Caller } from '../../auth/caller.ts';

/** How long a key keeps returning its run. After that the same key starts a new run. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** A client's claim on a key: which request it made, as a hash of the operation and validated body (read from the request by src/api/idempotency-header.ts). */
export interface IdempotencyClaim {
  key: string;
  requestHash: string;
}

/** Keys created before this have expired. */
export const claimsExpiredBefore = () => new Date(Date.now() - IDEMPOTENCY_TTL_HOURS * 3600_000);

/**
 * The run a live key already started, or undefined when the key is new (or expired).
 * The same key with another request → 422, nothing changed.
 */
export async function runOfClaim(
  db: ApiDeps['db'],
  caller: Caller,
  claim: IdempotencyClaim,
): Promise<string | undefined> {
  const row = await findIdempotencyKey(db, caller, claim.key);
  if (!row || row.createdAt < claimsExpiredBefore()) return undefined;
  if (row.requestHash !== claim.requestHash) {
    throw invalidField(
      ['header', 'idempotency-key'],
      'This key was already used with a different request; use a new key for a new request',
      'idempotency_key_reused',
    );
  }
  return row.runId;
}

/** Drops keys past their lifetime (the reconciler calls this now and then). */
export async function purgeExpiredClaims(db: ApiDeps['db']): Promise<number> {
  return purgeIdempotencyKeys(db, claimsExpiredBefore());
}
