import type { RunEventInput } from '../shared/events.ts';
import { activeStatuses } from '../shared/run-status.ts';
import type { Db } from './client.ts';
import { RunGoneError } from './event-log.ts';
import { storeRunStep } from './run-steps.ts';
import { sqlOfPool } from './sql.ts';

/** The step key of an end written for a run's workflow: stored once, however many apis find it. */
const ABANDONED_KEY = 'abandoned';

/** Of these runs, those not ended yet, with their org: the ones an end may still be written for. */
export async function activeRunsAmong(db: Db, runIds: string[]): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  const rows = await sqlOfPool(db).query<{ id: string; org_id: string }>(
    `SELECT r.id, t.org_id FROM runs r JOIN tasks t ON t.id = r.task_id
     WHERE r.id = ANY($1::text[]) AND r.status::text = ANY($2::text[])`,
    [runIds, activeStatuses],
  );
  return new Map(rows.map((r) => [r.id, r.org_id]));
}

/**
 * Ends a run whose workflow closed without storing the run's end (terminated or timed out in
 * Temporal): status failed, one RUN_ERROR, its open questions and approvals cancelled. A run that
 * ended, or whose task was deleted, is left alone. Returns its mode when this call ended it.
 */
export async function storeAbandonedRunEnd(
  db: Db,
  runId: string,
  error: { code: string; message: string },
): Promise<string | undefined> {
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
    return stored.endedMode;
  } catch (err) {
    if (err instanceof RunGoneError) return undefined;
    throw err;
  }
}
