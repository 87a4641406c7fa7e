import { describe, expect, it } from 'vitest';
import { runScript } from './support/processes.ts';

/**
 * Issue 33's benches, shrunk: they assert no timing or memory goal (the full runs print the figures);
 * they check that each still drives every run it starts to its end and prints what it measures.
 */
describe('the noisy neighbour (npm run bench:fairness), shrunk', () => {
  it("prints B's times idle and during A's burst as ratios, B's legs, and every one of A's runs completed", async () => {
    const { code, stdout, stderr } = await runScript('bench/fairness.ts', [], {
      BENCH_PROCESSES: 'tsx',
      FAIRNESS_SERVERS: 'fair',
      FAIRNESS_BURST: '30',
      FAIRNESS_BURST_CONCURRENCY: '10',
      FAIRNESS_B_RUNS: '3',
      FAIRNESS_B_INTERVAL_MS: '300',
    });
    const report = `${stdout}\n${stderr.slice(-4000)}`;
    expect(code, report).toBe(0);
    for (const what of ['RUN_STARTED', 'first event from the worker', 'RUN_FINISHED'])
      expect(stdout, report).toMatch(
        new RegExp(`\\| B: POST → ${what} +\\| [\\d.]+× / [\\d.]+× / [\\d.]+× +\\| (yes|\\*\\*no\\*\\*) +\\|`),
      );
    expect(stdout, report).toMatch(/\| A: 30 runs completed \(lost\) +\| 30 \(0\) +\| yes +\|/);
    expect(stdout, report).toMatch(/\| B's runs failed: idle \/ during the burst +\| +6 \|.*\| 0 \/ 0 +\|/);
    expect(stdout, report).toMatch(
      /B's legs during A's burst, median ms.*client → workflow started \d+;.*activity: started → completed \d+/,
    );
  }, 240_000);
});

describe('what a waiting run costs (npm run bench:waiting), shrunk', () => {
  it('every run reaches its question, is answered and completes, and memory is read at each stage', async () => {
    const { code, stdout, stderr } = await runScript('bench/waiting.ts', [], {
      BENCH_PROCESSES: 'tsx',
      WAITING_RUNS: '8',
      WAITING_CONCURRENCY: '4',
      WAITING_WARM_UP: '1',
      WAITING_SETTLE_MS: '500',
      WAITING_QUIET_S: '1',
    });
    const report = `${stdout}\n${stderr.slice(-4000)}`;
    expect(code, report).toBe(0);
    expect(stdout, report).toMatch(
      /\| runs started \/ waiting \/ answered \/ completed \(lost\) +\| 8\/8 \/ 8 \/ 8 \/ 8 \(0\) +\| all, 0 lost +\| yes +\|/,
    );
    expect(stdout, report).toMatch(/\| worker RSS while 8 wait ÷ idle .*\| [\d.]+× +\| ≤ 1\.5× +\|/);
    expect(stdout, report).toMatch(/\| worker RSS +\|( \d+ MiB +\|){6}/);
    expect(stdout, report).toMatch(/\| api RSS while 8 wait \(highest\) +\| \d+ MiB +\|/);
  }, 240_000);
});
