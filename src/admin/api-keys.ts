import { generateApiKey } from '../auth/api-keys.ts';
import {
  findApiKey,
  insertApiKey,
  listApiKeys as listApiKeyRows,
  revokeApiKeyOnce,
  type ApiKey,
} from '../db/api-keys.ts';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../shared/ids.ts';
import { AdminError } from './errors.ts';
import { requireUser } from './users.ts';

export interface ApiKeySummary {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  /** Non-secret start of the key, for recognising it. */
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A newly created key: the only time the full key exists outside its holder. */
export interface CreatedApiKey extends ApiKeySummary {
  key: string;
}

/** Creates a key for a user; only its SHA-256 hash and prefix are stored. */
export async function createApiKey(db: DbOrTx, input: { userId: string; name?: string }): Promise<CreatedApiKey> {
  const user = await requireUser(db, input.userId);
  // A widget visitor acts only through its short-lived visitor token, never through a key of its own.
  if (user.visitor) throw new AdminError(`user ${user.id} is a widget visitor, not a member: it gets no API key`);
  const { key, prefix, hash } = generateApiKey();
  const row = await insertApiKey(db, {
    id: newId('key'),
    orgId: user.orgId,
    userId: user.id,
    name: input.name?.trim() ?? '',
    prefix,
    hash,
  });
  return { ...toSummary(row), key };
}

/** Revokes a key. Revoking an already revoked key keeps its original revocation time. */
export async function revokeApiKey(db: DbOrTx, keyId: string): Promise<ApiKeySummary & { already_revoked: boolean }> {
  const row = await findApiKey(db, keyId);
  if (!row) throw new AdminError(`API key ${keyId} not found`);
  if (row.revokedAt) return { ...toSummary(row), already_revoked: true };
  const updated = await revokeApiKeyOnce(db, keyId);
  return { ...toSummary(updated), already_revoked: false };
}

export async function listApiKeys(db: DbOrTx, filter: { userId?: string; orgId?: string }): Promise<ApiKeySummary[]> {
  const rows = await listApiKeyRows(db, filter);
  return rows.map(toSummary);
}

function toSummary(k: ApiKey): ApiKeySummary {
  return {
    id: k.id,
    org_id: k.orgId,
    user_id: k.userId,
    name: k.name,
    prefix: k.prefix,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
  };
}
