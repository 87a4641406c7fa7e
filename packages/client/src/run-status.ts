/**
 * One human label per run status of the spec, and for `needs_you` (a run waiting on the viewer's
 * answer): the words the console, the CLI and the docs show, defined once.
 */
import type { RunListStatus } from './types.ts';

export const RUN_STATUS_LABELS: Readonly<Record<RunListStatus, string>> = {
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

/** The label of a run status (or `needs_you`); an unknown value is shown as it is. */
export function runStatusLabel(status: string): string {
  return RUN_STATUS_LABELS[status as RunListStatus] ?? status;
}

/** Whether a run in this status has ended: completed, failed or cancelled. */
export function isTerminalRunStatus(status: string): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
