import { WorkflowNotFoundError } from '@temporalio/client';
import { listStalledQueues } from '../../db/run-queue.ts';
import { listPendingRunsBefore } from '../../db/runs.ts';
import type { ApiDeps } from '../deps.ts';
import { every } from './every.ts';
import { endAbandonedRuns } from '../services/abandoned-runs.ts';
import { purgeExpiredClaims } from '../services/idempotency.ts';
import { failUnstartedRun } from '../services/start-run.ts';
import { startNextQueuedRun } from '../services/run-queue.ts';
import { startRunWorkflow } from '../services/workflow-start.ts';

export interface ReconcilerOptions {
  /** How often to look. */
  intervalMs: number;
  /** A run this young may still be starting in the request that created it. */
  graceMs: number;
  /** A run whose workflow still cannot be started after this long is failed. */
  giveUpMs: number;
}

export const defaultReconcilerOptions: ReconcilerOptions = { intervalMs: 5_000, graceMs: 5_000, giveUpMs: 10 * 60_000 };

const BATCH = 100;
const PURGE_EVERY = 720; // passes: about once an hour

/** How far back an api that just started looks for workflows that closed without their run's end. */
const ABANDONED_LOOKBACK_MS = 7 * 24 * 3600_000;
/** Later passes look back to the previous pass less this much: visibility may index a close late. */
const VISIBILITY_LAG_MS = 5 * 60_000;

/**
 * Finds runs left `pending` with no workflow (an api died between committing the run and
 * starting its workflow) and starts them; one that cannot be started for `giveUpMs` is failed
 * with a RUN_ERROR. Ends the runs whose workflows were terminated or timed out in Temporal
 * (abandoned-runs.ts). Every api process runs one: whichever comes up next repairs what another
 * left behind, and two reconcilers racing on one run are harmless (workflow id = run id).
 */
export function startRunReconciler(
  deps: ApiDeps,
  options: ReconcilerOptions = defaultReconcilerOptions,
): { stop(): Promise<void> } {
  let passes = 0;
  let closedSince = new Date(Date.now() - ABANDONED_LOOKBACK_MS);
  const pass = async () => {
    try {
      await reconcilePendingRuns(deps, options);
      const passStart = Date.now();
      await endAbandonedRuns(deps, closedSince);
      closedSince = new Date(passStart - VISIBILITY_LAG_MS);
      await moveStalledQueues(deps);
      if (++passes % PURGE_EVERY === 1) await purgeExpiredClaims(deps.db);
    } catch (err) {
      deps.logger.warn({ err }, 'run reconciliation pass failed; retrying on the next pass');
    }
  };
  return every(options.intervalMs, pass, { now: true });
}

export async function reconcilePendingRuns(deps: ApiDeps, { graceMs, giveUpMs }: ReconcilerOptions): Promise<number> {
  const { db, logger } = deps;
  const stuck = await listPendingRunsBefore(db, new Date(Date.now() - graceMs), BATCH);
  let repaired = 0;
  for (const run of stuck) {
    if (await workflowExists(deps, run.id)) continue; // started; its workflow moves the status on
    try {
      await startRunWorkflow(deps, {
        runId: run.id,
        taskId: run.taskId,
        orgId: run.orgId,
        agentId: run.agentId,
        agentName: run.agentName,
        userId: run.userId,
        mode: run.mode,
        routingReason: run.routingReason,
        ...(run.maxConcurrentRuns !== null ? { concurrencyLimit: run.maxConcurrentRuns } : {}),
      });
      logger.warn(
        { runId: run.id },
        'started a run whose workflow was never started (its api stopped after storing it)',
      );
      repaired++;
    } catch (err) {
      if (Date.now() - run.createdAt.getTime() < giveUpMs) throw err;
      logger.error({ err, runId: run.id }, 'giving up on starting a stored run');
      await failUnstartedRun(db, run.id, 'The run could not be started; start it again');
      repaired++;
    }
  }
  return repaired;
}

/** Starts the next run of every queue whose runs ahead have all ended (an end no api heard, or a failed start). */
export async function moveStalledQueues(deps: ApiDeps): Promise<number> {
  let moved = 0;
  for (const taskId of await listStalledQueues(deps.db, BATCH)) if (await startNextQueuedRun(deps, taskId)) moved++;
  return moved;
}

async function workflowExists({ temporal }: ApiDeps, runId: string): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(runId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
