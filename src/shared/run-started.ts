import type { RunEventInput } from './events.ts';
import type { RunWorkflowInput } from './run-workflow-types.ts';

/** The first events of every run: written by the api with the run, or by the workflow for runs started without them. */
export function runStartedEvents(
  run: Pick<RunWorkflowInput, 'runId' | 'taskId' | 'mode' | 'routingReason'>,
): RunEventInput[] {
  return [
    {
      type: 'RUN_STARTED',
      thread_id: run.taskId,
      run_id: run.runId,
      mode: run.mode,
      routing_reason: run.routingReason,
    },
    { type: 'STATE_SNAPSHOT', state: { run_status: 'pending', mode: run.mode } },
  ];
}

/** The idempotency key of those events: the api and the workflow use the same, so they are never written twice. */
export const RUN_STARTED_KEY = 'started';
