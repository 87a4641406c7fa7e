import type { WorkerDeploymentVersion } from '@temporalio/common';
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
import { becomeCurrentVersion } from './current-version.ts';
import { drainOlderBuilds, type RunningVersion } from './older-builds.ts';
import { loadWorkflowCode } from './workflow-code.ts';
import { BundleStore, pinnedDeploymentOptions, workerVersion } from './workflow-version.ts';

export interface WorkerHandle {
  worker: Worker;
  /** This process's sandbox host and the task queue it polls for that host's sandbox activities. */
  host: { hostId: string; taskQueue: string };
  /** The Worker Deployment Version new runs on this worker are pinned to. */
  version: WorkerDeploymentVersion;
  /** Resolves when the worker has stopped (after shutdown() or a fatal error). */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

type CommonOptions = Omit<WorkerOptions, 'taskQueue'>;

/**
 * Creates and runs the Temporal workers of one process: the shared task queue (workflows
 * and every activity) and this sandbox host's own queue (activities only), where the
 * workflow sends the operations of the sandboxes this host holds (docs/operations.md "Scaling out").
 * Both poll as one pinned Worker Deployment Version (workflow-version.ts), which becomes the
 * deployment's current version once registered (current-version.ts); older builds this host
 * still has runs of keep running beside it (older-builds.ts).
 * With `tracing`, workflow interceptors go into the workflow bundle (they create spans,
 * never commands, and add no awaits around handlers, so histories replay the same with
 * or without), activity interceptors continue the trace, and a sink exports workflow spans.
 */
export async function startWorker(deps: ActivityDeps, tracing?: Tracing): Promise<WorkerHandle> {
  const { config, logger } = deps;
  // Log what confinement this host gives sandboxed commands (seccomp, cgroups, disk quotas) now, not at the first command.
  void sandboxHostFor(deps)
    .probe()
    .catch((err: unknown) => logger.warn({ err: String(err) }, 'sandbox host probe failed'));
  const host = sandboxHostIdentity(config);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  const traced = tracing ? tracingWorkerOptions(tracing) : undefined;
  const common: CommonOptions = {
    connection,
    namespace: config.temporal.namespace,
    activities: createActivities(deps),
    interceptors: { activity: [...(traced?.activity ?? []), logContextInterceptor(deps.db)] },
    sinks: traced?.sinks,
    // Cancellation reaches an activity with its next heartbeat; send them promptly.
    maxHeartbeatThrottleInterval: '1 second',
    defaultHeartbeatThrottleInterval: '1 second',
    // On shutdown: stop polling, let running activities finish for this long, then cancel them;
    // a cancelled attempt fails and Temporal retries it on another worker (a sandbox call: on the
    // host holding the sandbox, or, once this host's lease lapses, on the next one).
    shutdownGraceTime: config.shutdownGraceMs,
  };
  const queues: [string, string] = [config.temporal.taskQueue, host.taskQueue];
  const code = await loadWorkflowCode(traced !== undefined, config.workflowBundle);
  const version = workerVersion(config, code);
  const bundles = BundleStore.of(config);
  bundles.keep(version.buildId, code);
  const current = await runVersion(common, version, code, queues, config);
  const promotion = new AbortController();
  void becomeCurrentVersion(connection, config.temporal.namespace, version, queues[0], logger, promotion.signal);
  const older = drainOlderBuilds({
    connection,
    namespace: config.temporal.namespace,
    bundles,
    current: version,
    logger,
    run: (olderVersion, olderCode) => runVersion(common, olderVersion, olderCode, queues, config),
  });
  const renewal = startLeaseRenewal(deps.db, host.hostId, config.sandbox.leaseSeconds, logger);
  const done = current.done.finally(async () => {
    promotion.abort();
    await older.stop();
    renewal.stop();
    await connection.close();
  });
  return {
    worker: current.worker,
    host,
    version,
    done,
    async shutdown() {
      await Promise.all([current.shutdown(), older.stop()]);
      await done;
    },
  };
}

/**
 * A bounded workflow cache (WORKER_MAX_CACHED_WORKFLOWS): a run waiting for hours costs its history
 * in Temporal, not memory here; when it goes on, a worker replays it. The SDK default grows with the
 * heap instead. Few workflow tasks at once (WORKER_MAX_CONCURRENT_WORKFLOW_TASKS, never more than the
 * cache holds: the SDK's rule): they share one thread, and the ones a worker has taken wait there in
 * arrival order, while those left in the task queue are handed out by Temporal's fairness and priority.
 */
function workflowTaskOptions({
  maxCachedWorkflows,
  maxConcurrentWorkflowTasks,
}: WorkflowSlots): Partial<WorkerOptions> {
  const cacheBound = maxCachedWorkflows === 0 ? Infinity : maxCachedWorkflows; // 0: no cache, no bound from it
  return { maxCachedWorkflows, maxConcurrentWorkflowTaskExecutions: Math.min(maxConcurrentWorkflowTasks, cacheBound) };
}

type WorkflowSlots = Pick<ActivityDeps['config'], 'maxCachedWorkflows' | 'maxConcurrentWorkflowTasks'>;

/** The workers of one version: workflows and activities on the shared queue, activities on the host's. */
async function runVersion(
  common: CommonOptions,
  version: WorkerDeploymentVersion,
  code: string,
  [taskQueue, hostTaskQueue]: [string, string],
  slots: WorkflowSlots,
): Promise<RunningVersion & { worker: Worker }> {
  const workerDeploymentOptions = pinnedDeploymentOptions(version);
  const worker = await Worker.create({
    ...common,
    taskQueue,
    workflowBundle: { code },
    workerDeploymentOptions,
    ...workflowTaskOptions(slots),
  });
  const hostWorker = await Worker.create({ ...common, taskQueue: hostTaskQueue, workerDeploymentOptions });
  const stopBoth = () => {
    for (const w of [worker, hostWorker]) if (w.getState() === 'RUNNING') w.shutdown();
  };
  // One stopping (a fatal error) stops the other: a process polling only half its queues would strand work.
  const done = Promise.allSettled([worker.run().finally(stopBoth), hostWorker.run().finally(stopBoth)]).then(
    (results) => {
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  );
  return {
    worker,
    done,
    async shutdown() {
      stopBoth();
      await done;
    },
  };
}
