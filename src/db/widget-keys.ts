import type { WidgetKey } from '../generated/prisma/client.ts';
import type { Db, DbOrTx } from './client.ts';

export type { WidgetKey };

export async function insertWidgetKey(
  db: DbOrTx,
  key: { id: string; orgId: string; agentId: string; name: string; prefix: string; hash: string; origins: string[] },
): Promise<WidgetKey> {
  return db.widgetKey.create({ data: key });
}

export async function findWidgetKey(db: DbOrTx, keyId: string): Promise<WidgetKey | null> {
  return db.widgetKey.findUnique({ where: { id: keyId } });
}

/** The key with that hash, with its agent's id, name and customer-facing flag. */
export async function findWidgetKeyByHash(db: Db, hash: string) {
  return db.widgetKey.findUnique({ where: { hash }, include: { agent: { select: { id: true, name: true, customerFacing: true } } } });
}

/** The key and its agent as the widget gateway uses them on every request. */
export async function findWidgetKeyWithAgent(db: Db, keyId: string) {
  return db.widgetKey.findUnique({
    where: { id: keyId },
    include: { agent: { select: { id: true, orgId: true, name: true, customerFacing: true, modelSettings: true } } },
  });
}

/** The org's unrevoked key of that name, oldest first. */
export async function findActiveWidgetKeyNamed(db: DbOrTx, orgId: string, name: string): Promise<WidgetKey | null> {
  return db.widgetKey.findFirst({ where: { orgId, name, revokedAt: null }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** Keys of an org, oldest first. */
export async function listWidgetKeys(db: DbOrTx, orgId: string): Promise<WidgetKey[]> {
  return db.widgetKey.findMany({ where: { orgId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

export async function updateWidgetKeyOrigins(db: DbOrTx, keyId: string, origins: string[]): Promise<void> {
  await db.widgetKey.update({ where: { id: keyId }, data: { origins } });
}

/** Revokes the key unless it already is; returns it after. */
export async function revokeWidgetKeyOnce(db: DbOrTx, keyId: string): Promise<WidgetKey> {
  await db.widgetKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date() } });
  return db.widgetKey.findUniqueOrThrow({ where: { id: keyId } });
}

/** Whether any unrevoked widget key allows `origin` (answers CORS preflights, which carry no key or token). */
export async function someActiveWidgetKeyAllows(db: Db, origin: string): Promise<boolean> {
  const row = await db.widgetKey.findFirst({ where: { revokedAt: null, origins: { has: origin } }, select: { id: true } });
  return row !== null;
}
