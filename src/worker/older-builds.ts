import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { BundleStore } from './workflow-version.ts';

/** How often a drain checks whether its build still has open runs. */
export const DRAIN_CHECK_MS = 10_000;

export interface RunningVersion {
  done: Promise<void>;
  shutdown(): Promise<void>;
}

export interface OlderBuildsDeps {
  connection: NativeConnection;
  namespace: string;
  bundles: BundleStore;
  /** The version this process runs: every other build in the store is older. */
  current: WorkerDeploymentVersion;
  logger: Logger;
  /** Starts workers of `version` on this process's queues, running `code`. */
  run(version: WorkerDeploymentVersion, code: string): Promise<RunningVersion>;
}

/**
 * A restart with new workflow code (`npm start` after an edit, one worker on a DATA_DIR) must not
 * strand the runs pinned to the build it replaced, as no other process runs that build any more.
 * So, for each older build whose bundle this host kept and which still has open runs, the process
 * also runs workers of that build until its runs have ended; then it forgets the bundle. In a
 * rainbow deploy the old workers drain their own runs and a new host has no older bundles.
 */
export function drainOlderBuilds(deps: OlderBuildsDeps): { stop(): Promise<void> } {
  const stopped = new AbortController();
  const drains = deps.bundles
    .buildIds()
    .filter((buildId) => buildId !== deps.current.buildId)
    .map((buildId) => drain({ deploymentName: deps.current.deploymentName, buildId }, deps, stopped.signal));
  return {
    async stop() {
      stopped.abort();
      await Promise.allSettled(drains);
    },
  };
}

async function drain(version: WorkerDeploymentVersion, deps: OlderBuildsDeps, stopped: AbortSignal): Promise<void> {
  const { logger, bundles } = deps;
  const fields = { deploymentName: version.deploymentName, buildId: version.buildId };
  try {
    if ((await openRuns(version, deps)) === 0) {
      bundles.forget(version.buildId);
      return;
    }
    const running = await deps.run(version, bundles.read(version.buildId));
    logger.info(fields, 'running an older worker version until its runs have ended');
    const ended = running.done.then(() => 'ended' as const);
    while (!stopped.aborted) {
      const outcome = await Promise.race([ended, sleep(DRAIN_CHECK_MS, stopped)]);
      if (outcome === 'ended' || stopped.aborted) break;
      if ((await openRuns(version, deps).catch(() => -1)) === 0) {
        bundles.forget(version.buildId);
        logger.info(fields, 'older worker version drained');
        break;
      }
    }
    await running.shutdown();
  } catch (err) {
    logger.error({ ...fields, err: String(err) }, 'could not run an older worker version; its runs wait for it');
  }
}

/** Open runs pinned to `version` (visibility: they record the version of their last workflow task). */
async function openRuns(version: WorkerDeploymentVersion, deps: OlderBuildsDeps): Promise<number> {
  const { count } = await deps.connection.workflowService.countWorkflowExecutions({
    namespace: deps.namespace,
    query: `TemporalWorkerDeploymentVersion = '${version.deploymentName}:${version.buildId}' AND ExecutionStatus = 'Running'`,
  });
  return Number(String(count ?? 0));
}

function sleep(ms: number, signal: AbortSignal): Promise<'slept'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('slept'), ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve('slept')), { once: true });
  });
}
