/**
 * The run status machine: the spec's table plus the edges a real run needs
 * (fast runs skip planning; executing ⇄ paused; executing ⇄ awaiting_approval
 * for action gates; any non-terminal status may end cancelled or failed).
 */
export const runStatuses = [
  'pending',
  'planning',
  'awaiting_approval',
  'executing',
  'completed',
  'failed',
  'cancelled',
  'paused',
] as const;
export type RunStatus = (typeof runStatuses)[number];

const transitions: Record<RunStatus, readonly RunStatus[]> = {
  pending: ['planning', 'executing', 'failed', 'cancelled'],
  planning: ['awaiting_approval', 'executing', 'failed', 'cancelled'],
  awaiting_approval: ['executing', 'failed', 'cancelled'],
  executing: ['awaiting_approval', 'paused', 'completed', 'failed', 'cancelled'],
  paused: ['executing', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return transitions[from].includes(to);
}

export function isTerminalStatus(status: RunStatus): boolean {
  return transitions[status].length === 0;
}

export function isActiveStatus(status: RunStatus): boolean {
  return !isTerminalStatus(status);
}

/** The statuses a run ends in, and those it has before, as lists for queries. */
export const terminalStatuses = runStatuses.filter(isTerminalStatus);
export const activeStatuses = runStatuses.filter(isActiveStatus);

/** Task-level status derived from the task's latest run. */
export type TaskRunStatus = 'idle' | 'pending' | 'running' | 'completed' | 'failed';

export function taskRunStatus(latest: RunStatus | undefined): TaskRunStatus {
  if (latest === undefined) return 'idle';
  switch (latest) {
    case 'pending':
      return 'pending';
    case 'planning':
    case 'awaiting_approval':
    case 'executing':
    case 'paused':
      return 'running';
    case 'completed':
      return 'completed';
    case 'failed':
    case 'cancelled':
      return 'failed';
  }
}

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: RunStatus,
    readonly to: RunStatus,
  ) {
    super(`Run status cannot move from ${from} to ${to}`);
    this.name = 'IllegalTransitionError';
  }
}

export function assertTransition(from: RunStatus, to: RunStatus): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
}

/**
 * The status a run's workflow moves to first: executing, or planning for a deep run. The api
 * starts the workflow with it as the RunStatus search attribute, so that first move costs the
 * Temporal server no upsert (the run row says pending until the move is stored, milliseconds later).
 */
export function firstRunStatus(mode: 'fast' | 'deep'): RunStatus {
  return mode === 'deep' ? 'planning' : 'executing';
}
