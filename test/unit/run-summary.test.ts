import { describe, expect, it } from 'vitest';
import { runSummary } from '../../src/api/services/run-summary.ts';

describe('runSummary (the Temporal UI list line of a run)', () => {
  it('names the agent and the first words of the request, never the whole message', () => {
    expect(runSummary('support', 'Refund order 42 please', 'task_1')).toBe('support: Refund order 42 please');
    expect(runSummary('a', 'one two three four five six seven eight nine ten', 't')).toBe(
      'a: one two three four five six seven eight…',
    );
    expect(runSummary('a', 'x'.repeat(20) + ' ' + 'y'.repeat(20) + ' ' + 'z'.repeat(23), 't')).toMatch(/^a: .{60}…$/);
  });

  it('leaves out token-like words and falls back to the task for an empty request', () => {
    expect(runSummary('a', 'use key ars_live_abcdefghijklmnopqrstuvwxyz now', 't')).toBe('a: use key now');
    expect(runSummary('a', '   ', 'task_9')).toBe('a · task task_9');
    expect(runSummary('a', undefined, 'task_9')).toBe('a · task task_9');
  });
});
