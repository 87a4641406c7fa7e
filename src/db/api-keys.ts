import type { ApiKey } from '../generated/prisma/client.ts';
import type { Db, DbOrTx } from './client.ts';

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
export async function findApiKeyByHash(db: Db, hash: string) {
  return db.apiKey.findUnique({ where: { hash }, include: { user: { select: { id: true, role: true } } } });
}

/** The user's oldest unrevoked key of that name. */
export async function findActiveApiKeyNamed(db: DbOrTx, userId: string, name: string): Promise<ApiKey | null> {
  return db.apiKey.findFirst({ where: { userId, name, revokedAt: null }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** Keys of a user and/or an org, oldest first. */
export async function listApiKeys(db: DbOrTx, filter: { userId?: string; orgId?: string }): Promise<ApiKey[]> {
  return db.apiKey.findMany({ where: { userId: filter.userId, orgId: filter.orgId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** Revokes the key unless it already is (a concurrent revoke cannot move the revocation time); returns it after. */
export async function revokeApiKeyOnce(db: DbOrTx, keyId: string): Promise<ApiKey> {
  await db.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date() } });
  return db.apiKey.findUniqueOrThrow({ where: { id: keyId } });
}

export async function markApiKeyUsed(db: Db, keyId: string): Promise<void> {
  await db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: new Date() } });
}
