import type { RunEventInput } from '../shared/events.ts';
import type { Db } from './client.ts';
import { RunGoneError } from './event-log.ts';
import { storeRunStep } from './run-steps.ts';

/** The step key of an end written for a run's workflow: stored once, however many apis find it. */
const ABANDONED_KEY = 'abandoned';

/**
 * Ends a run whose workflow closed without storing the run's end (terminated or timed out in
 * Temporal): status failed, one RUN_ERROR, its open questions and approvals cancelled. A run that
 * ended, or whose task was deleted, is left alone. Returns its mode and org when this call ended it.
 */
export async function storeAbandonedRunEnd(
  db: Db,
  runId: string,
  error: { code: string; message: string },
): Promise<{ mode: string; orgId: string } | undefined> {
  const event: RunEventInput = { type: 'RUN_ERROR', run_id: runId, ...error, details: {} };
  try {
    const stored = await storeRunStep(db, {
      runId,
      key: ABANDONED_KEY,
      status: 'failed',
      events: [event],
      error,
      cancelOpenRequests: true,
    });
    if (stored.endedMode === undefined) return undefined;
    const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { task: { select: { orgId: true } } } });
    return { mode: stored.endedMode, orgId: run.task.orgId };
  } catch (err) {
    if (err instanceof RunGoneError) return undefined;
    throw err;
  }
}
