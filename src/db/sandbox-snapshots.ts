import type { Db } from './client.ts';

export interface NewSnapshot {
  id: string;
  orgId: string;
  agentId: string;
  runId: string | null;
  archive: Uint8Array<ArrayBuffer>;
}

/** Stores a workspace snapshot and deletes the agent's older ones beyond the newest `keep`. */
export async function storeSnapshot(db: Db, snapshot: NewSnapshot, keep: number): Promise<void> {
  await db.sandboxSnapshot.create({ data: { ...snapshot, sizeBytes: snapshot.archive.length } });
  const stale = await db.sandboxSnapshot.findMany({
    where: { orgId: snapshot.orgId, agentId: snapshot.agentId },
    orderBy: { createdAt: 'desc' },
    skip: keep,
    select: { id: true },
  });
  if (stale.length > 0) await db.sandboxSnapshot.deleteMany({ where: { id: { in: stale.map((s) => s.id) } } });
}

/** The agent's newest snapshot in the org, or null. */
export async function latestSnapshot(db: Db, orgId: string, agentId: string) {
  return db.sandboxSnapshot.findFirst({ where: { orgId, agentId }, orderBy: { createdAt: 'desc' } });
}
