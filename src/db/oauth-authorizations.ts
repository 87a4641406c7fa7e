import type { DbOrTx } from './client.ts';

export interface OAuthAuthorizationRow {
  id: string;
  orgId: string;
  userId: string;
  server: string;
  sealed: Uint8Array;
  expiresAt: Date;
}

/** Keeps a started Connect until its callback; those whose time is up go at the same time. */
export async function insertOAuthAuthorization(db: DbOrTx, row: OAuthAuthorizationRow): Promise<void> {
  await db.oAuthAuthorization.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  await db.oAuthAuthorization.create({ data: { ...row, sealed: new Uint8Array(row.sealed) } });
}

/** Takes a started Connect by id, once: the first to delete it has it; null when unknown, used or expired. */
export async function takeOAuthAuthorization(db: DbOrTx, id: string): Promise<OAuthAuthorizationRow | null> {
  const row = await db.oAuthAuthorization.findUnique({ where: { id } });
  if (!row) return null;
  const { count } = await db.oAuthAuthorization.deleteMany({ where: { id } });
  if (count !== 1 || row.expiresAt.getTime() <= Date.now()) return null;
  return row;
}
