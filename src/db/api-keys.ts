import type { ApiKey } from '../generated/prisma/client.ts';
import type { Db, DbOrTx } from './client.ts';
import { sqlOfPool } from './sql.ts';
import type { Role } from './users.ts';

export type { ApiKey };

export async function insertApiKey(
  db: DbOrTx,
  key: { id: string; orgId: string; userId: string; name: string; prefix: string; hash: string },
): Promise<ApiKey> {
  return db.apiKey.create({ data: key });
}

export async function findApiKey(db: DbOrTx, keyId: string): Promise<ApiKey | null> {
  return db.apiKey.findUnique({ where: { id: keyId } });
}

/** The key with that hash and its user's id and role. */
export async function findApiKeyByHash(
  db: Db,
  hash: string,
): Promise<
  { id: string; orgId: string; hash: string; revokedAt: Date | null; user: { id: string; role: Role } } | undefined
> {
  const [key] = await sqlOfPool(db).query<{
    id: string;
    org_id: string;
    hash: string;
    revoked_at: Date | null;
    user_id: string;
    role: Role;
  }>(
    'SELECT k.id, k.org_id, k.hash, k.revoked_at, u.id AS user_id, u.role::text AS role FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.hash = $1',
    [hash],
  );
  return (
    key && {
      id: key.id,
      orgId: key.org_id,
      hash: key.hash,
      revokedAt: key.revoked_at,
      user: { id: key.user_id, role: key.role },
    }
  );
}

/** The user's oldest unrevoked key of that name. */
export async function findActiveApiKeyNamed(db: DbOrTx, userId: string, name: string): Promise<ApiKey | null> {
  return db.apiKey.findFirst({
    where: { userId, name, revokedAt: null },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** Keys of a user and/or an org, oldest first. */
export async function listApiKeys(db: DbOrTx, filter: { userId?: string; orgId?: string }): Promise<ApiKey[]> {
  return db.apiKey.findMany({
    where: { userId: filter.userId, orgId: filter.orgId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** Revokes the key unless it already is (a concurrent revoke cannot move the revocation time); returns it after. */
export async function revokeApiKeyOnce(db: DbOrTx, keyId: string): Promise<ApiKey> {
  await db.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date() } });
  return db.apiKey.findUniqueOrThrow({ where: { id: keyId } });
}

export async function markApiKeyUsed(db: Db, keyId: string): Promise<void> {
  await sqlOfPool(db).query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [keyId]);
}
