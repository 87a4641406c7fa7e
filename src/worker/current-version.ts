import { hostname } from 'node:os';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';

type Timestamp = temporal.api.deployment.v1.WorkerDeploymentInfo.IWorkerDeploymentVersionSummary['createTime'];

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/**
 * Makes `version` its deployment's current version (where new runs start) once the server has
 * registered it on `taskQueue`, unless a newer version (created later) is current already: a
 * deploy needs no operator step, and an old worker restarting during a rollout does not take new
 * runs back. A rollback to an older build is the operator's `temporal worker deployment
 * set-current-version`. Retries until done or `signal` aborts; never throws.
 */
export async function becomeCurrentVersion(
  connection: NativeConnection,
  namespace: string,
  version: WorkerDeploymentVersion,
  taskQueue: string,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  const service = connection.workflowService;
  const { deploymentName, buildId } = version;
  for (let attempt = 0, delay = FIRST_RETRY_MS; !signal.aborted; attempt++, delay = Math.min(delay * 2, MAX_RETRY_MS)) {
    try {
      const { workerDeploymentVersionInfo: ours } = await service.describeWorkerDeploymentVersion({
        namespace,
        deploymentVersion: version,
      });
      // Before its workflow queue is registered, the version could be current and still receive no runs.
      if (ours?.taskQueueInfos?.some((q) => q.name === taskQueue && q.type === 1 /* TASK_QUEUE_TYPE_WORKFLOW */)) {
        const { workerDeploymentInfo: deployment, conflictToken } = await service.describeWorkerDeployment({
          namespace,
          deploymentName,
        });
        const current = deployment?.routingConfig?.currentDeploymentVersion;
        if (current?.buildId === buildId) return;
        const createdAt = (id: string | null | undefined) =>
          millis(deployment?.versionSummaries?.find((v) => v.deploymentVersion?.buildId === id)?.createTime);
        if (current?.buildId && createdAt(current.buildId) > createdAt(buildId)) {
          logger.info({ deploymentName, buildId, current: current.buildId }, 'a newer worker version is current');
          return;
        }
        await service.setWorkerDeploymentCurrentVersion({
          namespace,
          deploymentName,
          buildId,
          conflictToken,
          identity: `ars-worker ${hostname()}:${process.pid}`,
          // Each sandbox host polls a queue of its own, which a new version on other hosts lacks.
          ignoreMissingTaskQueues: true,
        });
        logger.info({ deploymentName, buildId, previous: current?.buildId }, 'worker version is now current');
        return;
      }
    } catch (err) {
      // Not found until the server has seen our first polls; a conflict when another worker set it meanwhile.
      if (attempt >= 20) logger.warn({ err: String(err), deploymentName, buildId }, 'worker version not yet current');
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function millis(ts: Timestamp): number {
  return ts ? Number(String(ts.seconds ?? 0)) * 1000 + (ts.nanos ?? 0) / 1e6 : 0;
}
