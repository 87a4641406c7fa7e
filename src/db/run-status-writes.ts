import { canTransition, IllegalTransitionError, runStatuses, type RunStatus } from '../shared/run-status.ts';

/**
 * The one gate for writes of `runs.status`. Every writer — a run step stored for the workflow or by a
 * model step (run-steps.ts), the api ending a run that never started (run-starts.ts, run-queue.ts) —
 * checks its move against the transition table with the status the row holds under the writer's lock.
 */
export function checkStatusWrite(from: RunStatus, to: RunStatus | undefined): void {
  if (to !== undefined && !canTransition(from, to)) throw new IllegalTransitionError(from, to);
}

/** The statuses a row may hold for a move to `to`: the guard of a statement that checks in SQL (null: no move). */
export function statusesMovingTo(to: RunStatus | undefined): RunStatus[] | null {
  return to === undefined ? null : runStatuses.filter((from) => canTransition(from, to));
}

/** A run whose workflow never started ends from `pending` only: one that started or ended meanwhile is left alone. */
export function unstartedRunEnd(to: 'failed' | 'cancelled'): { from: 'pending'; to: typeof to } {
  checkStatusWrite('pending', to);
  return { from: 'pending', to };
}
