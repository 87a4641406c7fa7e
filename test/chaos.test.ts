import { describe, expect, it } from 'vitest';
import { runScript } from './support/processes.ts';

/**
 * The small chaos run: `npm run chaos` with 3 clients and one fault of each kind
 * (kill -9 worker, api, Temporal; PostgreSQL restart), on its own restartable
 * stack. The script checks every run and exits non-zero on any loss.
 */
describe('chaos, one fault of each kind', () => {
  it('every run completes with every event exactly once, in order, as stored', async () => {
    const { code, stdout, stderr } = await runScript('scripts/chaos.ts', ['--clients', '3', '--rounds', '1']);
    const summary = /^faults=(\d+) runs=(\d+) lost=(\d+) duplicated=(\d+) reordered=(\d+)$/m.exec(stdout);
    expect(summary, `${stdout}\n${stderr.slice(-4000)}`).not.toBeNull();
    const [faults, runs, lost, duplicated, reordered] = summary!.slice(1).map(Number);
    expect({ faults, lost, duplicated, reordered }).toEqual({ faults: 4, lost: 0, duplicated: 0, reordered: 0 });
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(stdout).toMatch(/not_completed=0 history_mismatch=0 text_mismatch=0 orphans=0 /);
    expect(code, stdout).toBe(0);
  }, 900_000);
});
