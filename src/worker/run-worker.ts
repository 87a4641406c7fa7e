import { createRequire } from 'node:module';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import type { ActivityDeps } from '../activities/deps.ts';
import { sandboxHostFor } from '../sandbox/host.ts';
import { temporalConnectionOptions } from '../infra/temporal-connection.ts';

const require = createRequire(import.meta.url);

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
  const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowsPath: require.resolve('../workflows/index.ts'),
    activities: createActivities(deps),
    // Cancellation reaches an activity with its next heartbeat; send them promptly.
    maxHeartbeatThrottleInterval: '1 second',
    defaultHeartbeatThrottleInterval: '1 second',
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
