/** One human label per run status of the spec (and `needs_you`), used wherever the console names a run's status. */
import type { RunListStatus } from '@agent-run/client';

export const RUN_STATUS_LABELS: Record<RunListStatus, string> = {
  needs_you: 'Needs you',
  pending: 'Queued',
  planning: 'Planning',
  awaiting_approval: 'Waiting for approval',
  executing: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** The filter's order: what needs the viewer first, then live states, then ended ones. */
export const RUN_STATUS_FILTERS = Object.keys(RUN_STATUS_LABELS) as RunListStatus[];

export function runStatusLabel(status: string): string {
  return RUN_STATUS_LABELS[status as RunListStatus] ?? status;
}
