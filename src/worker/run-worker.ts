import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import type { ActivityDeps } from '../activities/deps.ts';
import { sandboxHostFor } from '../sandbox/host.ts';
import { workflowCode } from './workflow-code.ts';

export interface WorkerHandle {
  worker: Worker;
  /** Resolves when the worker has stopped (after shutdown() or a fatal error). */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/** Creates and runs the Temporal worker that hosts run workflows and their activities. */
export async function startWorker(deps: ActivityDeps): Promise<WorkerHandle> {
  const { config } = deps;
  // Log what confinement this host gives sandboxed commands (seccomp, cgroups, disk quotas) now, not at the first command.
  void sandboxHostFor(deps).probe().catch((err: unknown) => deps.logger.warn({ err: String(err) }, 'sandbox host probe failed'));
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...workflowCode(),
    activities: createActivities(deps),
    // Cancellation reaches an activity with its next heartbeat; send them promptly.
    maxHeartbeatThrottleInterval: '1 second',
    defaultHeartbeatThrottleInterval: '1 second',
    // On shutdown: stop polling, let running activities finish for this long, then cancel them;
    // a cancelled attempt fails and Temporal retries it on another worker.
    shutdownGraceTime: config.shutdownGraceMs,
  });
  const done = worker.run().finally(() => connection.close());
  return {
    worker,
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
