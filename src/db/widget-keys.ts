import type { WidgetKey } from '../generated/prisma/client.ts';
import type { Db, DbOrTx } from './client.ts';
import { sqlOfPool } from './sql.ts';

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
  return db.widgetKey.findUnique({
    where: { hash },
    include: { agent: { select: { id: true, name: true, customerFacing: true } } },
  });
}

/** The key and its agent as the widget gateway uses them on every request. */
export async function findWidgetKeyWithAgent(db: Db, keyId: string) {
  return db.widgetKey.findUnique({
    where: { id: keyId },
    include: { agent: { select: { id: true, orgId: true, name: true, customerFacing: true, modelSettings: true } } },
  });
}

/**
 * Credits the runs of a key's visitors used since midnight UTC, and the key's daily budget
 * (its own `credits_per_day`, else `fallback`).
 */
export async function widgetKeyCreditsToday(
  db: Db,
  keyId: string,
  fallback: number,
): Promise<{ used: number; budget: number }> {
  const [row] = await sqlOfPool(db).query<{ used: string; budget: number | null }>(
    `SELECT (SELECT credits_per_day FROM widget_keys WHERE id = $1) AS budget,
       COALESCE((SELECT sum(r.credits_used) FROM users u JOIN tasks t ON t.org_id = u.org_id AND t.user_id = u.id JOIN runs r ON r.task_id = t.id
                 WHERE u.visitor_key_id = $1 AND r.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)::text AS used`,
    [keyId],
  );
  return { used: Number(row?.used ?? 0), budget: row?.budget ?? fallback };
}

/** The org's unrevoked key of that name, oldest first. */
export async function findActiveWidgetKeyNamed(db: DbOrTx, orgId: string, name: string): Promise<WidgetKey | null> {
  return db.widgetKey.findFirst({
    where: { orgId, name, revokedAt: null },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** Keys of an org, oldest first. */
export async function listWidgetKeys(db: DbOrTx, orgId: string): Promise<WidgetKey[]> {
  return db.widgetKey.findMany({ where: { orgId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

export async function updateWidgetKeyOrigins(db: DbOrTx, keyId: string, origins: string[]): Promise<void> {
  await db.widgetKey.update({ where: { id: keyId }, data: { origins } });
}

/** The key's daily credit budget; null: the service's default. */
export async function updateWidgetKeyCredits(db: DbOrTx, keyId: string, creditsPerDay: number | null): Promise<void> {
  await db.widgetKey.update({ where: { id: keyId }, data: { creditsPerDay } });
}

/** Revokes the key unless it already is; returns it after. */
export async function revokeWidgetKeyOnce(db: DbOrTx, keyId: string): Promise<WidgetKey> {
  await db.widgetKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date() } });
  return db.widgetKey.findUniqueOrThrow({ where: { id: keyId } });
}

/** Whether any unrevoked widget key allows `origin` (answers CORS preflights, which carry no key or token). */
export async function someActiveWidgetKeyAllows(db: Db, origin: string): Promise<boolean> {
  const row = await db.widgetKey.findFirst({
    where: { revokedAt: null, origins: { has: origin } },
    select: { id: true },
  });
  return row !== null;
}
