import type { User } from '../generated/prisma/client.ts';
import { Role } from '../generated/prisma/enums.ts';
import type { Db, DbOrTx } from './client.ts';
import { sqlOfPool } from './sql.ts';

export { Role };
export type { User };

export async function findUser(db: DbOrTx, userId: string): Promise<User | null> {
  return db.user.findUnique({ where: { id: userId } });
}

export async function findUserByEmail(db: DbOrTx, orgId: string, email: string): Promise<User | null> {
  return db.user.findUnique({ where: { orgId_email: { orgId, email } } });
}

export async function insertUser(db: DbOrTx, user: { id: string; orgId: string; email: string; name: string; role: Role }): Promise<User> {
  return db.user.create({ data: user });
}

/** The org's users, oldest first. */
export async function listUsersOfOrg(db: DbOrTx, orgId: string): Promise<User[]> {
  return db.user.findMany({ where: { orgId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

export async function updateUser(db: DbOrTx, userId: string, change: { role?: Role; name?: string }): Promise<void> {
  await db.user.update({ where: { id: userId }, data: change });
}

export async function emailsOfUsers(db: DbOrTx, userIds: string[]): Promise<string[]> {
  const rows = await db.user.findMany({ where: { id: { in: userIds } }, select: { email: true } });
  return rows.map((r) => r.email);
}

/**
 * A user's org and role now, and, when `apiKeyId` is given, whether that key of theirs
 * is revoked (`keyRevoked` true also when the key is gone). Null when the user is gone.
 * Every authenticated request asks this: one statement on the pg pool (src/db/sql.ts).
 */
export async function findUserStanding(db: Db, userId: string, apiKeyId?: string) {
  const [user] = await sqlOfPool(db).query<{ org_id: string; role: Role; key_revoked: boolean }>(
    `SELECT u.org_id, u.role::text AS role, ($2::text IS NOT NULL AND (k.id IS NULL OR k.revoked_at IS NOT NULL)) AS key_revoked
     FROM users u LEFT JOIN api_keys k ON k.id = $2 AND k.user_id = u.id
     WHERE u.id = $1`,
    [userId, apiKeyId ?? null],
  );
  return user ? { orgId: user.org_id, role: user.role, keyRevoked: user.key_revoked } : null;
}
