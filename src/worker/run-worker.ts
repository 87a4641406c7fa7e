import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import type { ActivityDeps } from '../activities/deps.ts';
import type { Tracing } from '../observability/tracing.ts';
import { sandboxHostFor } from '../sandbox/host.ts';
import { workflowCode } from './workflow-code.ts';
import { logContextInterceptor } from './activity-log-context.ts';
import { tracingWorkerOptions } from './tracing-options.ts';

export interface WorkerHandle {
  worker: Worker;
  /** Resolves when the worker has stopped (after shutdown() or a fatal error). */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Creates and runs the Temporal worker that hosts run workflows and their activities.
 * With `tracing`, workflow interceptors go into the workflow bundle (they create spans,
 * never commands, and add no awaits around handlers, so histories replay the same with
 * or without), activity interceptors continue the trace, and a sink exports workflow spans.
 */
export async function startWorker(deps: ActivityDeps, tracing?: Tracing): Promise<WorkerHandle> {
  const { config } = deps;
  // Log what confinement this host gives sandboxed commands (seccomp, cgroups, disk quotas) now, not at the first command.
  void sandboxHostFor(deps).probe().catch((err: unknown) => deps.logger.warn({ err: String(err) }, 'sandbox host probe failed'));
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const traced = tracing ? tracingWorkerOptions(tracing) : undefined;
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...workflowCode(traced !== undefined),
    activities: createActivities(deps),
    interceptors: {
      activity: [...(traced?.activity ?? []), logContextInterceptor(deps.db)],
      workflowModules: traced?.workflowModules ?? [],
    },
    sinks: traced?.sinks,
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
