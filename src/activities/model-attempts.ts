import { createHash } from 'node:crypto';
import type { Db } from '../db/client.ts';
import { discardEarlierAttempts, findStreamMarkers, type AttemptRef } from '../db/model-attempts.ts';
import type { RunEventInput } from '../shared/events.ts';

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
export function attemptMessageId({ runId, activityId, attempt }: AttemptRef): string {
  return `msg_${createHash('sha256').update(`${runId}\n${activityId}\n${attempt}`).digest('hex').slice(0, 32)}`;
}

/** Closing events and the `retrying` status for a retried attempt; marks earlier attempts' tokens as discarded. */
export async function retryPreamble(
  db: Db,
  ref: AttemptRef,
  step: number,
  operation: string,
): Promise<RunEventInput[]> {
  const earlierIds = Array.from({ length: ref.attempt - 1 }, (_, i) => attemptMessageId({ ...ref, attempt: i + 1 }));
  const rows = await findStreamMarkers(db, ref.runId, earlierIds);
  const has = (type: string, key: 'message_id' | 'tool_call_id', id: string) =>
    rows.some((r) => r.type === type && r[key] === id);
  const messages = earlierIds.filter((id) => has('TEXT_MESSAGE_START', 'message_id', id));
  // Tool calls this step streamed before that never got a result: the earlier attempt's.
  const toolCalls = rows
    .filter(
      (r) =>
        r.type === 'TOOL_CALL_START' && r.step === step && !has('TOOL_CALL_RESULT', 'tool_call_id', r.tool_call_id!),
    )
    .map((r) => r.tool_call_id!);
  await discardEarlierAttempts(db, ref);
  return [
    ...messages
      .filter((id) => !has('TEXT_MESSAGE_END', 'message_id', id))
      .map((id): RunEventInput => ({ type: 'TEXT_MESSAGE_END', message_id: id })),
    ...toolCalls
      .filter((id) => !has('TOOL_CALL_END', 'tool_call_id', id))
      .map((id): RunEventInput => ({ type: 'TOOL_CALL_END', tool_call_id: id })),
    {
      type: 'CUSTOM',
      name: 'SYSTEM_STATUS',
      data: {
        status: 'retrying',
        operation,
        step,
        attempt: ref.attempt,
        discarded_message_ids: messages,
        discarded_tool_call_ids: toolCalls,
      },
    },
  ];
}

// The attempts' rows are src/db's; model-step.ts and plan-step.ts import them from here.
