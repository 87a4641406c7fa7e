import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import type { ActivityDeps } from '../activities/deps.ts';
import { temporalConnectionOptions } from '../connections/temporal.ts';
import type { Tracing } from '../observability/tracing.ts';
import { sandboxHostFor } from '../sandbox/host.ts';
import { sandboxHostIdentity } from '../sandbox/host-identity.ts';
import { logContextInterceptor } from './activity-log-context.ts';
import { startLeaseRenewal } from './lease-renewal.ts';
import { tracingWorkerOptions } from './tracing-options.ts';
import { workflowCode } from './workflow-code.ts';

export interface WorkerHandle {
  worker: Worker;
  /** This process's sandbox host and the task queue it polls for that host's sandbox activities. */
  host: { hostId: string; taskQueue: string };
  /** Resolves when the worker has stopped (after shutdown() or a fatal error). */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Creates and runs the Temporal workers of one process: the shared task queue (workflows
 * and every activity) and this sandbox host's own queue (activities only), where the
 * workflow sends the operations of the sandboxes this host holds (docs/operations.md "Scaling out").
 * With `tracing`, workflow interceptors go into the workflow bundle (they create spans,
 * never commands, and add no awaits around handlers, so histories replay the same with
 * or without), activity interceptors continue the trace, and a sink exports workflow spans.
 */
export async function startWorker(deps: ActivityDeps, tracing?: Tracing): Promise<WorkerHandle> {
  const { config } = deps;
  // Log what confinement this host gives sandboxed commands (seccomp, cgroups, disk quotas) now, not at the first command.
  void sandboxHostFor(deps)
    .probe()
    .catch((err: unknown) => deps.logger.warn({ err: String(err) }, 'sandbox host probe failed'));
  const host = sandboxHostIdentity(config);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  const traced = tracing ? tracingWorkerOptions(tracing) : undefined;
  const common: Omit<WorkerOptions, 'taskQueue'> = {
    connection,
    namespace: config.temporal.namespace,
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
    // a cancelled attempt fails and Temporal retries it on another worker (a sandbox call: on the
    // host holding the sandbox, or, once this host's lease lapses, on the next one).
    shutdownGraceTime: config.shutdownGraceMs,
  };
  const worker = await Worker.create({
    ...common,
    taskQueue: config.temporal.taskQueue,
    ...workflowCode(traced !== undefined, config.workflowBundle),
  });
  const hostWorker = await Worker.create({ ...common, taskQueue: host.taskQueue });
  const renewal = startLeaseRenewal(deps.db, host.hostId, config.sandbox.leaseSeconds, deps.logger);
  const stopBoth = () => {
    for (const w of [worker, hostWorker]) if (w.getState() === 'RUNNING') w.shutdown();
  };
  // One stopping (a fatal error) stops the other: a process polling only half its queues would strand work.
  const done = Promise.allSettled([worker.run().finally(stopBoth), hostWorker.run().finally(stopBoth)])
    .then((results) => {
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    })
    .finally(async () => {
      renewal.stop();
      await connection.close();
    });
  return {
    worker,
    host,
    done,
    async shutdown() {
      stopBoth();
      await done;
    },
  };
}
