import type { Db } from './client.ts';

export interface LeaseClaim {
  orgId: string;
  agentId: string;
  hostId: string;
  taskQueue: string;
  ttlSeconds: number;
}

export type LeaseResult =
  | { mine: false; hostId: string; taskQueue: string }
  /** `takenFrom`: another host held it before (its copy of the workspace, not ours, was the live one). */
  | { mine: true; hostId: string; taskQueue: string; takenFrom?: string };

/**
 * Who holds the sandbox: a live lease of another host is left alone; a lapsed one (or
 * none) becomes the claimer's. One transaction, on the database's clock, so hosts with
 * skewed clocks agree on expiry; the row lock makes concurrent claims take turns.
 */
export async function claimSandboxLease(db: Db, claim: LeaseClaim): Promise<LeaseResult> {
  const { orgId, agentId, hostId, taskQueue, ttlSeconds } = claim;
  return db.$transaction(async (tx) => {
    // A first claim finds no row: make one that is already lapsed, so both cases go the same way.
    await tx.$executeRaw`INSERT INTO sandbox_leases (org_id, agent_id, host_id, task_queue, expires_at) VALUES (${orgId}, ${agentId}, ${hostId}, ${taskQueue}, now()) ON CONFLICT DO NOTHING`;
    const [held] = await tx.$queryRaw<{ host_id: string; task_queue: string; live: boolean }[]>`
      SELECT host_id, task_queue, expires_at > now() AS live FROM sandbox_leases WHERE org_id = ${orgId} AND agent_id = ${agentId} FOR UPDATE`;
    if (!held) throw new Error(`sandbox lease row of ${orgId}/${agentId} vanished`);
    if (held.live && held.host_id !== hostId) return { mine: false, hostId: held.host_id, taskQueue: held.task_queue };
    await tx.$executeRaw`
      UPDATE sandbox_leases SET host_id = ${hostId}, task_queue = ${taskQueue}, expires_at = now() + make_interval(secs => ${ttlSeconds}::double precision),
        acquired_at = CASE WHEN host_id = ${hostId} THEN acquired_at ELSE now() END
      WHERE org_id = ${orgId} AND agent_id = ${agentId}`;
    return { mine: true, hostId, taskQueue, ...(held.host_id !== hostId ? { takenFrom: held.host_id } : {}) };
  });
}

/** Renews this host's lease on one sandbox; false when the host does not hold it (any more). */
export async function renewSandboxLease(db: Db, lease: Omit<LeaseClaim, 'taskQueue'>): Promise<boolean> {
  const n = await db.$executeRaw`
    UPDATE sandbox_leases SET expires_at = now() + make_interval(secs => ${lease.ttlSeconds}::double precision)
    WHERE org_id = ${lease.orgId} AND agent_id = ${lease.agentId} AND host_id = ${lease.hostId}`;
  return n > 0;
}

/** Renews every lease the host holds (its heartbeat); returns how many. */
export async function renewHostLeases(db: Db, hostId: string, ttlSeconds: number): Promise<number> {
  return db.$executeRaw`UPDATE sandbox_leases SET expires_at = now() + make_interval(secs => ${ttlSeconds}::double precision) WHERE host_id = ${hostId}`;
}
