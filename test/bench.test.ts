import { describe, expect, it } from 'vitest';
import { runScript } from './support/processes.ts';

/**
 * The small bench: `npm run bench` with every phase shrunk, on the sources (no build). It asserts
 * no timing (the full bench prints the figures); it checks that the bench still measures every
 * target of issue 11 beside the floor, and that every run it drove completed with all its events,
 * in order, on both models.
 */
describe('the benchmark, shrunk', () => {
  it('prints a row for every target, and every measured run delivered every event in order', async () => {
    const { code, stdout, stderr } = await runScript('bench/index.ts', [], {
      BENCH_PROCESSES: 'tsx',
      BENCH_RUNS: '2',
      BENCH_CONCURRENCY: '4',
      BENCH_ROUNDS: '1',
      BENCH_RELAY_RUNS: '4',
      BENCH_STREAMS: '20',
      BENCH_STREAM_SETTLE_MS: '3000',
      BENCH_HISTORY_EVENTS: '1000',
      BENCH_PAGE_SAMPLES: '2',
    });
    const report = `${stdout}\n${stderr.slice(-4000)}`;
    expect(code, report).toBe(0);
    const targets = stdout.slice(stdout.indexOf('| target'), stdout.indexOf('| section'));
    for (const metric of [
      'start → RUN_STARTED at the client',
      'whole fast run, zero-latency model',
      'throughput at 4 concurrent (8 runs), instant model',
      'throughput at 4 concurrent (8 runs), paced model',
      'relay p50',
      'relay p99',
      'open SSE streams, api RSS per stream',
      'history first page',
      'history deep page',
      'worker RSS, idle',
      'api RSS, idle',
    ]) {
      expect(targets, report).toContain(metric);
    }
    // Both throughput phases: 8 of 8 runs complete, no event lost or out of order.
    expect(targets.match(/\| … runs complete \/ events lost \/ misordered\s*\|\s*8\/8 \/ 0 \/ 0\s*\|/g), report).toHaveLength(2);
    // The legs: the floor's and ours, from their workflow histories.
    expect(stdout).toMatch(/floor: where a run goes.*client → workflow started \d+;.*workflow completed → client -?\d+/);
    expect(stdout).toMatch(/ours \(instant model\): the same legs.*activity: scheduled → completed \d+/);
  }, 300_000);
});
