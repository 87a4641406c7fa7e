/** The run status labels of the SDK (one per spec status, and `needs_you`), the order the console offers them in, and which controls apply. */
import { isTerminalRunStatus, RUN_STATUS_LABELS, type RunListStatus, type RunSummary } from '@agent-run/client';

export { isTerminalRunStatus, RUN_STATUS_LABELS, runStatusLabel } from '@agent-run/client';

/** The filter's order: what needs the viewer first, then live states, then ended ones. */
export const RUN_STATUS_FILTERS = Object.keys(RUN_STATUS_LABELS) as RunListStatus[];

export type RunStatus = RunSummary['status'];

/** Which controls a run in `status` offers; `waiting`: it waits for an answer (a question or an approval). */
export function runControlsFor(status: RunStatus, waiting = false) {
  const live = !isTerminalRunStatus(status);
  return {
    pause: status === 'executing' && !waiting,
    resume: status === 'paused',
    cancel: live,
    comment: live && status !== 'paused',
  };
}
