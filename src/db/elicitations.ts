import type { Answer, PendingRequest } from '../shared/input-requests.ts';
import type { RunEventInput } from '../shared/events.ts';
import { isTerminalStatus } from '../shared/run-status.ts';
import type { Db } from './client.ts';
import { insertLocked, lockRunLog } from './event-log.ts';
import { inPgTransaction, sqlOfPool } from './sql.ts';

/*
 * Input requests a tool server asked for during a call (MCP elicitation). They live in
 * input_requests like the run's own questions, marked by `details.elicitation`; the tool-call
 * activity that asked waits for them here, and the api answers them here instead of through the
 * workflow, which is busy with that activity.
 */

export interface StoredElicitation {
  request: PendingRequest;
  runId: string;
  status: string;
  answer: Answer | null;
}

interface Row {
  id: string;
  run_id: string;
  input_type: PendingRequest['inputType'];
  prompt: string;
  details: PendingRequest['details'];
  tool_call_id: string | null;
  status: string;
  answer: Answer | null;
}

/** The request if a tool server asked it (undefined for the run's own questions and unknown ids). */
export async function findElicitation(db: Db, requestId: string): Promise<StoredElicitation | undefined> {
  const [row] = await sqlOfPool(db).query<Row>(
    `SELECT id, run_id, input_type, prompt, details, tool_call_id, status, answer FROM input_requests
     WHERE id = $1 AND details ? 'elicitation'`,
    [requestId],
  );
  if (!row) return undefined;
  return {
    request: {
      requestId: row.id,
      inputType: row.input_type,
      prompt: row.prompt,
      details: row.details,
      ...(row.tool_call_id ? { toolCallId: row.tool_call_id } : {}),
      sensitive: false,
    },
    runId: row.run_id,
    status: row.status,
    answer: row.answer,
  };
}

/** Stores an answer (or a dismissal) of a pending request; false when it was not pending any more. */
export async function answerElicitation(db: Db, requestId: string, answer: Answer, userId: string): Promise<boolean> {
  const rows = await sqlOfPool(db).query(
    `UPDATE input_requests SET status = $2, answer = $3::jsonb, answered_by = $4, answered_at = now()
     WHERE id = $1 AND status = 'pending' RETURNING id`,
    [requestId, answer.cancelled ? 'dismissed' : 'answered', JSON.stringify(answer), userId],
  );
  return rows.length > 0;
}

/**
 * Closes a pending request as cancelled (no answer in time, the call ended) with `events`, in one
 * transaction; false when an answer came first. No event is added to a run that has ended.
 */
export async function closeElicitation(
  db: Db,
  runId: string,
  requestId: string,
  events: RunEventInput[],
): Promise<boolean> {
  return inPgTransaction(db, async (sql) => {
    const log = await lockRunLog(sql, runId, `closed:${requestId}`);
    const rows = await sql.query(
      `UPDATE input_requests SET status = 'cancelled', answered_at = now() WHERE id = $1 AND status = 'pending' RETURNING id`,
      [requestId],
    );
    if (rows.length === 0) return false;
    if (log.earlier === null && !isTerminalStatus(log.status))
      await insertLocked(sql, log, events, `closed:${requestId}`);
    return true;
  });
}

/** Closes what earlier attempts of a tool call asked and left open (their worker died while waiting). */
export async function closeLeftElicitations(db: Db, runId: string, toolCallId: string): Promise<void> {
  await sqlOfPool(db).query(
    `UPDATE input_requests SET status = 'cancelled', answered_at = now()
     WHERE run_id = $1 AND tool_call_id = $2 AND status = 'pending' AND details ? 'elicitation'`,
    [runId, toolCallId],
  );
}
