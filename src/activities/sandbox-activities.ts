import { Context } from '@temporalio/activity';
import { sandboxHostFor } from '../sandbox/host.ts';
import type { SnapshotResult } from '../sandbox/snapshots.ts';
import type { ActivityDeps } from './deps.ts';
import { assertSandboxHere } from './sandbox-lease.ts';

export interface SnapshotSandboxInput {
  orgId: string;
  agentId: string;
  runId: string;
}

export function createSandboxActivities(deps: ActivityDeps) {
  return {
    /**
     * Saves the agent's workspace as a snapshot after a run that used it, so a
     * host without the workspace (a restarted container, another machine) can
     * restore it. Waits for the sandbox's lock like any operation. Skipped when
     * this host has no workspace, or when the archive exceeds SANDBOX_SNAPSHOT_MAX_BYTES
     * (the earlier snapshots stay). A retried attempt may store one more snapshot;
     * only the newest SANDBOX_SNAPSHOTS_KEPT are kept.
     */
    async snapshotSandbox(input: SnapshotSandboxInput): Promise<SnapshotResult> {
      const activity = Context.current();
      await assertSandboxHere(deps, input.orgId, input.agentId);
      const result = await sandboxHostFor(deps)
        .sandbox(input.orgId, input.agentId)
        .snapshot(input.runId, { signal: activity.cancellationSignal, heartbeat: () => activity.heartbeat() });
      if (result.snapshot_id === null && result.skipped === 'too_large') {
        deps.logger.warn({ ...input, limit: result.size_limit_bytes }, 'sandbox workspace too large to snapshot');
      }
      return result;
    },
  };
}
