import { findRun } from '../../db/runs.ts';
import { takeQueuedRun } from '../../db/run-queue.ts';
import { isTerminalStatus } from '../../shared/run-status.ts';
import { cancelUpdate } from '../../workflows/run-messages.ts';
import type { ApiDeps } from '../deps.ts';
import { isDomainError } from '../../shared/domain-error.ts';
import { sendRunUpdate } from './run-updates.ts';
import { startRunWorkflow } from './workflow-start.ts';

/** How long an `interrupt` keeps asking a run whose workflow is still being started to cancel. */
const INTERRUPT_PATIENCE_MS = 10_000;
const INTERRUPT_RETRY_MS = 200;

/**
 * Starts the task's next queued run if nothing else of the task is unfinished (a no-op
 * otherwise, so every api may call it on every run end). A workflow that cannot be started
 * now is left to the reconciler: the run is then an ordinary pending run without a workflow.
 */
export async function startNextQueuedRun(
  deps: Pick<ApiDeps, 'db' | 'temporal' | 'config' | 'logger'>,
  taskId: string,
): Promise<string | undefined> {
  const run = await takeQueuedRun(deps.db, taskId);
  if (!run) return undefined;
  if (run.rolledBack.length > 0)
    deps.logger.info({ taskId, runId: run.id, rolledBack: run.rolledBack }, 'rolled back runs of the task');
  try {
    await startRunWorkflow(deps, {
      runId: run.id,
      taskId,
      orgId: run.orgId,
      agentId: run.agentId,
      agentName: run.agentName,
      userId: run.userId,
      mode: run.mode,
      routingReason: run.routingReason,
      source: run.source,
      request: run.request,
      ...(run.maxConcurrentRuns !== null ? { concurrencyLimit: run.maxConcurrentRuns } : {}),
    });
  } catch (err) {
    deps.logger.warn({ err, runId: run.id }, 'could not start a queued run now; the reconciler will');
  }
  return run.id;
}

/**
 * A run of the task ended while runs of it were queued (the terminal event's trigger notified
 * it): the next one starts. Every api process is told; the task's lock makes one of them start
 * it. A failure here is logged and repaired by the reconciler's next pass.
 */
export async function moveQueue(
  deps: Pick<ApiDeps, 'db' | 'temporal' | 'config' | 'logger'>,
  taskId: string,
): Promise<void> {
  try {
    await startNextQueuedRun(deps, taskId);
  } catch (err) {
    deps.logger.warn({ err, taskId }, 'could not move the task queue after a run ended; the reconciler will');
  }
}

/**
 * Cancels the running run an `interrupt` or `rollback` request replaces, as POST
 * /api/tasks/{id}/cancel would. A run whose workflow is still being started (another request
 * stored it a moment ago) is asked again until it takes the cancel or ends.
 */
export async function interruptRun(
  deps: Pick<ApiDeps, 'db' | 'temporal'>,
  runId: string,
  requestedBy: string,
): Promise<void> {
  const giveUpAt = Date.now() + INTERRUPT_PATIENCE_MS;
  for (;;) {
    try {
      await sendRunUpdate(deps.temporal, runId, cancelUpdate, { requestedBy });
      return;
    } catch (err) {
      if (!isDomainError(err, 'conflict')) throw err;
      const run = await findRun(deps.db, runId);
      if (!run || isTerminalStatus(run.status) || Date.now() > giveUpAt) return; // ended: the queue moves on its own
      await new Promise((r) => setTimeout(r, INTERRUPT_RETRY_MS));
    }
  }
}
