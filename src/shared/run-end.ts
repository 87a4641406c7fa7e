import type { RunEventInput } from './events.ts';
import type { RunStatus } from './run-status.ts';
import type { TokenUsage } from './run-workflow-types.ts';

/** The key of the STOPPING write a cancel makes before the run ends cancelled. */
export const STOPPING_KEY = 'stopping';

/** The key of the run's terminal write when it completes. */
export const FINISHED_KEY = 'finished';

/** The key of the write that applies a steering comment to the conversation. */
export const commentKey = (commentId: string) => `comment:${commentId}`;

/** The CUSTOM STOPPING event a cancel writes (STOPPING_KEY) before the run ends cancelled. */
export function stoppingEvent(runId: string): RunEventInput {
  return { type: 'CUSTOM', name: 'STOPPING', data: { run_id: runId } };
}

/** The STATE_DELTA that comes first in every status move's events. */
export function statusDelta(to: RunStatus): RunEventInput {
  return { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/run_status', value: to }] };
}

/** A completed run's RUN_FINISHED: its stored `result`, with the model and the run's usage. */
export function runFinishedEvent(
  runId: string,
  result: Record<string, unknown>,
  model: string | undefined,
  usage: TokenUsage,
): RunEventInput {
  return {
    type: 'RUN_FINISHED',
    run_id: runId,
    result: { ...result, model, usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens } },
  };
}
