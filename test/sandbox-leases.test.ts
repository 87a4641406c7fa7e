import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityDeps } from '../src/activities/deps.ts';
import { createSandboxActivities } from '../src/activities/sandbox-activities.ts';
import { createSandboxLeaseActivities } from '../src/activities/sandbox-lease.ts';
import { claimSandboxLease, renewSandboxLease } from '../src/db/sandbox-leases.ts';
import { sandboxHostFor } from '../src/sandbox/host.ts';
import { sandboxHostIdentity } from '../src/sandbox/host-identity.ts';
import { removeSandboxDirs, sandboxConfig } from './support/sandbox.ts';
import { closeTestDb, createTenant, testDb, type Tenant } from './support/tenant.ts';
import { eventually } from './support/eventually.ts';

/** Which host holds a sandbox: claims, expiry, take-over, and what a host that lost it refuses. */
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant();
});
afterAll(async () => {
  removeSandboxDirs();
  await closeTestDb();
});

/** One worker process's activity dependencies: its own DATA_DIR is its own sandbox host. */
function workerDeps(leaseSeconds = 2): ActivityDeps {
  const config = sandboxConfig({ SANDBOX_LEASE_SECONDS: String(leaseSeconds) });
  return { db: testDb(), config, logger: pino({ level: 'silent' }), env: process.env, deltaFlushMs: 0 };
}

describe('sandbox leases', () => {
  it('a live lease stays with its host; a lapsed one goes to the next claimer, who learns whose it was', async () => {
    const db = testDb();
    const sandbox = { orgId: tenant.orgId, agentId: tenant.privateAgentId };
    const a = { ...sandbox, hostId: 'host-a', taskQueue: 'q-a', ttlSeconds: 1 };
    const b = { ...sandbox, hostId: 'host-b', taskQueue: 'q-b', ttlSeconds: 1 };
    expect(await claimSandboxLease(db, a)).toEqual({ mine: true, hostId: 'host-a', taskQueue: 'q-a' });
    expect(await claimSandboxLease(db, b)).toEqual({ mine: false, hostId: 'host-a', taskQueue: 'q-a' });
    expect(await renewSandboxLease(db, b)).toBe(false);
    expect(await renewSandboxLease(db, a)).toBe(true);
    await eventually(
      'host b to take the lease over',
      async () =>
        expect(await claimSandboxLease(db, b)).toEqual({
          mine: true,
          hostId: 'host-b',
          taskQueue: 'q-b',
          takenFrom: 'host-a',
        }),
      { timeout: 5000, interval: 200 },
    );
    expect(await renewSandboxLease(db, a)).toBe(false);
  });

  it('concurrent claims agree on one holder', async () => {
    const other = await createTenant();
    const claims = Array.from({ length: 6 }, (_, i) => ({
      orgId: other.orgId,
      agentId: other.agentId,
      hostId: `host-${i}`,
      taskQueue: `q-${i}`,
      ttlSeconds: 30,
    }));
    const results = await Promise.all(claims.map((c) => claimSandboxLease(testDb(), c)));
    expect(results.filter((r) => r.mine)).toHaveLength(1);
    expect(new Set(results.map((r) => r.hostId)).size).toBe(1);
  });

  it('a host that takes a sandbox over drops its stale copy; the host that lost it refuses calls on its host queue', async () => {
    const [first, second] = [workerDeps(), workerDeps()];
    const input = { orgId: tenant.orgId, agentId: tenant.agentId };
    const lease = (deps: ActivityDeps) =>
      new MockActivityEnvironment().run(createSandboxLeaseActivities(deps).leaseSandbox, input);
    const onHostQueue = (deps: ActivityDeps) =>
      new MockActivityEnvironment({ taskQueue: sandboxHostIdentity(deps.config).taskQueue });

    // The second host holds the sandbox first and has a copy; then the first host takes it.
    expect(await lease(second)).toEqual({ taskQueue: sandboxHostIdentity(second.config).taskQueue, waitSeconds: 2 });
    await sandboxHostFor(second).sandbox(input.orgId, input.agentId).writeFile('old.txt', 'stale\n');
    await eventually(
      'the first host to be told to wait',
      async () =>
        expect(await lease(first)).toEqual({ taskQueue: sandboxHostIdentity(first.config).taskQueue, waitSeconds: 2 }),
      { timeout: 6000, interval: 250 },
    );
    await sandboxHostFor(first).sandbox(input.orgId, input.agentId).writeFile('new.txt', 'fresh\n');

    // The second host, whose lease lapsed, refuses to work on (or snapshot) its stale copy ...
    const snapshot = createSandboxActivities(second).snapshotSandbox;
    await expect(onHostQueue(second).run(snapshot, { ...input, runId: 'run_none' })).rejects.toMatchObject({
      type: 'SandboxMoved',
    });
    // ... and drops it when the sandbox comes back to it, so it restores what the first host saved.
    expect(
      await onHostQueue(first).run(createSandboxActivities(first).snapshotSandbox, { ...input, runId: 'run_none' }),
    ).toMatchObject({ snapshot_id: expect.any(String) });
    await eventually(
      'the second host to get the lease',
      async () =>
        expect(await lease(second)).toMatchObject({ taskQueue: sandboxHostIdentity(second.config).taskQueue }),
      { timeout: 6000, interval: 250 },
    );
    const seen: string[] = [];
    const files = await sandboxHostFor(second)
      .sandbox(input.orgId, input.agentId)
      .listFiles('.', {}, { onStatus: async (s) => void seen.push(s.status) });
    expect(seen).toEqual(['sandbox_restored']);
    expect(JSON.stringify(files)).toContain('new.txt');
    expect(JSON.stringify(files)).not.toContain('old.txt');
  });
});
