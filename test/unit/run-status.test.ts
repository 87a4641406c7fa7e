import { describe, expect, it } from 'vitest';
import {
  assertTransition,
  canTransition,
  IllegalTransitionError,
  isTerminalStatus,
  runStatuses,
  taskRunStatus,
} from '../../src/shared/run-status.ts';

describe('the run status machine', () => {
  it('allows every move of the spec table', () => {
    for (const [from, to] of [
      ['pending', 'planning'],
      ['planning', 'awaiting_approval'],
      ['awaiting_approval', 'executing'],
      ['executing', 'completed'],
      ['executing', 'failed'],
      ['executing', 'cancelled'],
      ['executing', 'paused'],
    ] as const) {
      expect(canTransition(from, to), `${from} → ${to}`).toBe(true);
    }
  });

  it('allows the extra edges a real run needs', () => {
    expect(canTransition('pending', 'executing')).toBe(true);
    expect(canTransition('paused', 'executing')).toBe(true);
    expect(canTransition('executing', 'awaiting_approval')).toBe(true);
    for (const s of runStatuses.filter((s) => !isTerminalStatus(s))) {
      expect(canTransition(s, 'cancelled'), s).toBe(true);
      expect(canTransition(s, 'failed'), s).toBe(true);
    }
  });

  it('never leaves a terminal status and refuses illegal moves', () => {
    for (const from of ['completed', 'failed', 'cancelled'] as const) {
      for (const to of runStatuses) expect(canTransition(from, to), `${from} → ${to}`).toBe(false);
    }
    expect(canTransition('pending', 'completed')).toBe(false);
    expect(canTransition('paused', 'completed')).toBe(false);
    expect(canTransition('awaiting_approval', 'paused')).toBe(false);
    expect(() => assertTransition('completed', 'executing')).toThrow(IllegalTransitionError);
    expect(() => assertTransition('pending', 'executing')).not.toThrow();
  });

  it('derives the task-level status from the latest run', () => {
    expect(taskRunStatus(undefined)).toBe('idle');
    expect(taskRunStatus('pending')).toBe('pending');
    for (const s of ['planning', 'awaiting_approval', 'executing', 'paused'] as const)
      expect(taskRunStatus(s)).toBe('running');
    expect(taskRunStatus('completed')).toBe('completed');
    expect(taskRunStatus('failed')).toBe('failed');
    expect(taskRunStatus('cancelled')).toBe('failed');
  });
});
