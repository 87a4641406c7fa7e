import { ApplicationFailure, Context } from '@temporalio/activity';
import { claimSandboxLease, renewSandboxLease } from '../db/sandbox-leases.ts';
import { sandboxHostIdentity } from '../sandbox/host-identity.ts';
import { sandboxHostFor } from '../sandbox/host.ts';
import { failureTypes, type SandboxRoute } from '../shared/run-workflow-types.ts';
import type { ActivityDeps } from './deps.ts';

export interface LeaseSandboxInput {
  orgId: string;
  agentId: string;
}

/**
 * Routing of sandbox activities (docs/operations.md "Scaling out"): a sandbox's workspace is on the
 * disk of one host, so its operations go to that host's own task queue. The lease says
 * which host; any worker answers `leaseSandbox` on the shared queue, and takes a lapsed
 * (or missing) lease itself.
 */
export function createSandboxLeaseActivities(deps: ActivityDeps) {
  return {
    async leaseSandbox(input: LeaseSandboxInput): Promise<SandboxRoute> {
      const { hostId, taskQueue } = sandboxHostIdentity(deps.config);
      const ttlSeconds = deps.config.sandbox.leaseSeconds;
      const lease = await claimSandboxLease(deps.db, { ...input, hostId, taskQueue, ttlSeconds });
      if (lease.mine && lease.takenFrom) {
        // Our copy, if we have one from an earlier lease, missed what the other host did since.
        const discarded = await sandboxHostFor(deps).sandbox(input.orgId, input.agentId).discardLocalCopy();
        deps.logger.info(
          { ...input, hostId, from: lease.takenFrom, discardedStaleCopy: discarded },
          'sandbox moved to this host',
        );
      }
      // Waiting a whole lease period for the holder to pick the call up means it is gone: its lease has lapsed by then.
      return { taskQueue: lease.taskQueue, waitSeconds: ttlSeconds };
    },
  };
}

/**
 * A sandbox operation that reached this host by its host queue runs only while the host
 * still holds the lease (renewed here); otherwise the sandbox moved (this host was
 * presumed dead) and the workflow must ask again. Calls on any other queue (the shared
 * one) come from runs started before routing existed and run as they did.
 */
export async function assertSandboxHere(deps: ActivityDeps, orgId: string, agentId: string): Promise<void> {
  const { hostId, taskQueue } = sandboxHostIdentity(deps.config);
  if (Context.current().info.taskQueue !== taskQueue) return;
  if (await renewSandboxLease(deps.db, { orgId, agentId, hostId, ttlSeconds: deps.config.sandbox.leaseSeconds }))
    return;
  throw ApplicationFailure.nonRetryable(
    `the sandbox of ${orgId}/${agentId} is no longer held by host ${hostId}`,
    failureTypes.sandboxMoved,
  );
}
