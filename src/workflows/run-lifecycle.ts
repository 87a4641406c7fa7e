import { ApplicationFailure } from '@temporalio/workflow';
import { isTerminalStatus, type RunStatus } from '../shared/run-status.ts';
import { refusals } from './run-messages.ts';

/**
 * Where a run is in its life, apart from its status: what people asked of it and how far the
 * workflow got with that. One value, so no combination of flags can contradict another.
 *
 *   running ──pause──▶ pausing ──safe point──▶ paused ──resume──▶ running
 *      │ ◀──resume──────┘                                              │
 *      ├──cancel (from running, pausing or paused)──▶ cancelling: STOPPING writing ▶ written
 *      │                          (the store refused STOPPING: the run had ended) ◀──┘ back to `before`
 *      └──the outcome is decided──▶ finishing
 */
export type Lifecycle =
  | { phase: 'running' }
  /** A pause was accepted; the run takes it at its next safe point. */
  | { phase: 'pausing' }
  /** Waiting at a safe point for resume (status `paused`). */
  | { phase: 'paused' }
  /** A cancel was accepted; `stopping` is how far its STOPPING event got. */
  | { phase: 'cancelling'; stopping: 'writing' | 'written'; before: Interruptible }
  /** The outcome is decided (the terminal write, or the last model step stored it): nothing more is accepted. */
  | { phase: 'finishing' };

type Interruptible = Extract<Lifecycle['phase'], 'running' | 'pausing' | 'paused'>;

export const running: Lifecycle = { phase: 'running' };

export const isCancelling = (life: Lifecycle): boolean => life.phase === 'cancelling';

/** A cancel is writing its STOPPING: the run must not end before it learns whether it got in first. */
export const isStoppingWrite = (life: Lifecycle): boolean => life.phase === 'cancelling' && life.stopping === 'writing';

/** The validators' refusals: synchronous, change nothing, and name the reason the api shows. */
export function refuseUnlessActive(life: Lifecycle, status: RunStatus, runId: string): void {
  if (isTerminalStatus(status) || life.phase === 'finishing')
    throw ApplicationFailure.nonRetryable(`Run ${runId} is not active`, refusals.notActive);
}

export function refusePause(life: Lifecycle, status: RunStatus, runId: string, waitingForInput: boolean): void {
  refuseUnlessActive(life, status, runId);
  if (life.phase === 'cancelling')
    throw ApplicationFailure.nonRetryable('The run is being cancelled', refusals.notActive);
  if (life.phase === 'pausing' || life.phase === 'paused')
    throw ApplicationFailure.nonRetryable('The run is already paused or pausing', refusals.notActive);
  if (waitingForInput)
    throw ApplicationFailure.nonRetryable(
      'The run is waiting for input; answer or cancel it instead',
      refusals.notActive,
    );
}

export function refuseResume(life: Lifecycle, status: RunStatus, runId: string): void {
  refuseUnlessActive(life, status, runId);
  if (life.phase !== 'pausing' && life.phase !== 'paused')
    throw ApplicationFailure.nonRetryable('The run is not paused', refusals.notActive);
}

/** A cancel was accepted in `life` (the validator refused it in any other phase); it writes STOPPING next. */
export function cancelling(life: Lifecycle): Lifecycle {
  if (life.phase === 'running' || life.phase === 'pausing' || life.phase === 'paused')
    return { phase: 'cancelling', stopping: 'writing', before: life.phase };
  return life;
}

/** STOPPING is stored: the run's work is cancelled and it ends `cancelled`. */
export const stoppingWritten = (life: Lifecycle): Lifecycle =>
  life.phase === 'cancelling' ? { ...life, stopping: 'written' } : life;

/** The cancel did not get in (the run had ended first, or its write failed): the run is where it was. */
export const cancelWithdrawn = (life: Lifecycle): Lifecycle =>
  life.phase === 'cancelling' ? { phase: life.before } : life;
