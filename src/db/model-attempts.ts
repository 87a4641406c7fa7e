import type { TokenUsage } from '../shared/run-workflow-types.ts';
import type { Db } from './client.ts';
import { sqlOfPool } from './sql.ts';

/** One attempt of one model call of a run: the key of its `model_attempts` row. */
export interface AttemptRef {
  runId: string;
  activityId: string;
  attempt: number;
}

/** A start, end or result of a streamed text message or tool call, as a retry looks for them. */
export interface StreamMarker {
  type: string;
  message_id: string | null;
  tool_call_id: string | null;
  /** The model step a tool call was streamed in (its metadata), when it has one. */
  step: number | null;
}

/** The run's text-message markers of those message ids, and every tool-call marker of the run. */
export async function findStreamMarkers(db: Db, runId: string, messageIds: string[]): Promise<StreamMarker[]> {
  return db.$queryRaw<StreamMarker[]>`
    SELECT type, payload->>'message_id' AS message_id, payload->>'tool_call_id' AS tool_call_id, (payload->'metadata'->>'step')::int AS step
    FROM run_events
    WHERE run_id = ${runId}
      AND type IN ('TEXT_MESSAGE_START', 'TEXT_MESSAGE_END', 'TOOL_CALL_START', 'TOOL_CALL_END', 'TOOL_CALL_RESULT')
      AND (payload->>'message_id' = ANY(${messageIds}::text[]) OR payload->>'tool_call_id' IS NOT NULL)`;
}

/** A retry replaces every earlier attempt of the same call: their tokens are billed as discarded. */
export async function discardEarlierAttempts(db: Db, ref: AttemptRef): Promise<void> {
  await sqlOfPool(db).query(
    'UPDATE model_attempts SET discarded = true WHERE run_id = $1 AND activity_id = $2 AND attempt < $3',
    [ref.runId, ref.activityId, ref.attempt],
  );
}

/** Keeps the tokens an attempt reported, once per attempt. */
export async function recordAttemptUsage(db: Db, ref: AttemptRef, usage: TokenUsage): Promise<void> {
  await sqlOfPool(db).query(
    `INSERT INTO model_attempts (run_id, activity_id, attempt, input_tokens, output_tokens) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING`,
    [ref.runId, ref.activityId, ref.attempt, usage.inputTokens, usage.outputTokens],
  );
}

/** The tokens the latest earlier attempt of a call reported and kept (a retry of a step whose work was already stored). */
export async function keptAttemptUsage(db: Db, ref: AttemptRef): Promise<TokenUsage> {
  const [kept] = await sqlOfPool(db).query<TokenUsage>(
    `SELECT input_tokens AS "inputTokens", output_tokens AS "outputTokens" FROM model_attempts
     WHERE run_id = $1 AND activity_id = $2 AND attempt < $3 AND NOT discarded ORDER BY attempt DESC LIMIT 1`,
    [ref.runId, ref.activityId, ref.attempt],
  );
  return kept ?? { inputTokens: 0, outputTokens: 0 };
}

/** This attempt fails: its tokens will not reach the workflow, so they are billed as discarded. */
export async function discardAttempt(db: Db, ref: AttemptRef): Promise<void> {
  await sqlOfPool(db).query(
    'UPDATE model_attempts SET discarded = true WHERE run_id = $1 AND activity_id = $2 AND attempt = $3',
    [ref.runId, ref.activityId, ref.attempt],
  );
}
