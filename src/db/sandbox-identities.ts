import type { Db } from './client.ts';

/**
 * The slot of an agent's sandbox in an org (its host uid is derived from it, see
 * src/sandbox/identity.ts): the one it has, or the next of the sequence. Concurrent first
 * calls, from any worker, agree: the insert does nothing when the row exists, and both
 * read the row that won. The insert runs only for a sandbox without a slot, so the
 * sequence is not spent by every call.
 */
export async function sandboxSlot(db: Db, orgId: string, agentId: string): Promise<number> {
  const where = { orgId_agentId: { orgId, agentId } };
  const found = await db.sandboxIdentity.findUnique({ where, select: { slot: true } });
  if (found) return found.slot;
  await db.sandboxIdentity.createMany({ data: [{ orgId, agentId }], skipDuplicates: true });
  return (await db.sandboxIdentity.findUniqueOrThrow({ where, select: { slot: true } })).slot;
}
