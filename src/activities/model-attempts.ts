import { createHash } from 'node:crypto';
import type { Db, Tx } from '../db/client.ts';
import type { RunEventInput } from '../shared/events.ts';
import type { TokenUsage } from '../shared/run-workflow-types.ts';

/**
 * Attempts of one model call (one activity of a run). A retried attempt, whether the
 * last one failed or its worker was killed mid-stream, must leave the run's stream
 * well-formed and its bill exact:
 * - each attempt streams its text under a message id derived from (run, activity,
 *   attempt), so a later attempt knows the ids of every earlier one;
 * - the retry closes what an earlier attempt left open (TEXT_MESSAGE_END,
 *   TOOL_CALL_END) and names the discarded messages and tool calls in its
 *   SYSTEM_STATUS `retrying` event, so a client drops them and shows the new attempt;
 * - the tokens each attempt reported are kept in `model_attempts`; those of attempts
 *   whose result never reached the workflow are billed once, on top of the run's steps.
 */
export interface AttemptRef {
  runId: string;
  activityId: string;
  attempt: number;
}

export function attemptMessageId({ runId, activityId, attempt }: AttemptRef): string {
  return `msg_${createHash('sha256').update(`${runId}\n${activityId}\n${attempt}`).digest('hex').slice(0, 32)}`;
}

/** Closing events and the `retrying` status for a retried attempt; marks earlier attempts' tokens as discarded. */
export async function retryPreamble(db: Db, ref: AttemptRef, step: number, operation: string): Promise<RunEventInput[]> {
  const earlierIds = Array.from({ length: ref.attempt - 1 }, (_, i) => attemptMessageId({ ...ref, attempt: i + 1 }));
  const rows = await db.$queryRaw<{ type: string; message_id: string | null; tool_call_id: string | null; step: number | null }[]>`
    SELECT type, payload->>'message_id' AS message_id, payload->>'tool_call_id' AS tool_call_id, (payload->'metadata'->>'step')::int AS step
    FROM run_events
    WHERE run_id = ${ref.runId}
      AND type IN ('TEXT_MESSAGE_START', 'TEXT_MESSAGE_END', 'TOOL_CALL_START', 'TOOL_CALL_END', 'TOOL_CALL_RESULT')
      AND (payload->>'message_id' = ANY(${earlierIds}::text[]) OR payload->>'tool_call_id' IS NOT NULL)`;
  const has = (type: string, key: 'message_id' | 'tool_call_id', id: string) => rows.some((r) => r.type === type && r[key] === id);
  const messages = earlierIds.filter((id) => has('TEXT_MESSAGE_START', 'message_id', id));
  // Tool calls this step streamed before that never got a result: the earlier attempt's.
  const toolCalls = rows
    .filter((r) => r.type === 'TOOL_CALL_START' && r.step === step && !has('TOOL_CALL_RESULT', 'tool_call_id', r.tool_call_id!))
    .map((r) => r.tool_call_id!);
  await discardEarlierAttempts(db, ref);
  return [
    ...messages.filter((id) => !has('TEXT_MESSAGE_END', 'message_id', id)).map((id): RunEventInput => ({ type: 'TEXT_MESSAGE_END', message_id: id })),
    ...toolCalls.filter((id) => !has('TOOL_CALL_END', 'tool_call_id', id)).map((id): RunEventInput => ({ type: 'TOOL_CALL_END', tool_call_id: id })),
    {
      type: 'CUSTOM',
      name: 'SYSTEM_STATUS',
      data: { status: 'retrying', operation, step, attempt: ref.attempt, discarded_message_ids: messages, discarded_tool_call_ids: toolCalls },
    },
  ];
}

/** A retry replaces every earlier attempt of the same call: their tokens are billed as discarded. */
export async function discardEarlierAttempts(db: Db, ref: AttemptRef): Promise<void> {
  await db.modelAttempt.updateMany({ where: { runId: ref.runId, activityId: ref.activityId, attempt: { lt: ref.attempt } }, data: { discarded: true } });
}

/** Keeps the tokens an attempt reported, once per attempt. */
export async function recordAttemptUsage(db: Db, ref: AttemptRef, usage: TokenUsage): Promise<void> {
  await db.modelAttempt.createMany({
    data: [{ ...ref, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }],
    skipDuplicates: true,
  });
}

/** This attempt fails: its tokens will not reach the workflow, so they are billed as discarded. */
export async function discardAttempt(db: Db, ref: AttemptRef): Promise<void> {
  await db.modelAttempt.updateMany({ where: ref, data: { discarded: true } });
}

/** Tokens of the run's discarded attempts, for the bill. */
export async function discardedUsage(tx: Tx, runId: string): Promise<TokenUsage> {
  const sum = await tx.modelAttempt.aggregate({ where: { runId, discarded: true }, _sum: { inputTokens: true, outputTokens: true } });
  return { inputTokens: sum._sum.inputTokens ?? 0, outputTokens: sum._sum.outputTokens ?? 0 };
}
