import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { capTemporalCpu } from '../bench/cores.ts';
import { runScript } from './support/processes.ts';

/**
 * The small bench: `npm run bench` with every phase shrunk, on the sources (no build). It asserts
 * no timing (the full bench prints the figures); it checks that the bench still measures every
 * target of issue 11 beside the floor (and issue 30's MCP tool call beside the SDK's), and that every
 * run it drove completed with all its events, in order, on both models.
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
      BENCH_MCP_RUNS: '2',
    });
    const report = `${stdout}\n${stderr.slice(-4000)}`;
    expect(code, report).toBe(0);
    const targets = stdout.slice(stdout.indexOf('| target'), stdout.indexOf('| section'));
    for (const metric of [
      'start → RUN_STARTED at the client',
      'whole fast run, zero-latency model',
      'CPU per run at 4 concurrent, instant model, all processes',
      'throughput at 4 concurrent (8 runs), instant model',
      'throughput at 4 concurrent (8 runs), paced model',
      'relay p50',
      'relay p99',
      'open SSE streams, api RSS per stream',
      'history first page',
      'history deep page',
      'one MCP tool call in a run',
      'worker RSS, idle',
      'api RSS, idle',
    ]) {
      expect(targets, report).toContain(metric);
    }
    // Both throughput phases: 8 of 8 runs complete, no event lost or out of order.
    expect(
      targets.match(/\| … runs complete \/ events lost \/ misordered\s*\|\s*8\/8 \/ 0 \/ 0\s*\|/g),
      report,
    ).toHaveLength(2);
    // The legs: the floor's and ours, from their workflow histories.
    expect(stdout).toMatch(
      /floor: where a run goes.*client → workflow started \d+;.*workflow completed → client -?\d+/,
    );
    expect(stdout).toMatch(
      /ours \(instant model\): the same legs.*activity: waiting for the worker \d+; activity: started → completed \d+/,
    );
  }, 300_000);
});

describe('the local-activity floor (npm run bench:local-floor), shrunk', () => {
  it('prints both workflows with their rate, their ratio to the floor and their CPU a run', async () => {
    const { code, stdout, stderr } = await runScript('bench/local-floor.ts', [], {
      LOCAL_FLOOR_ROUNDS: '1',
      LOCAL_FLOOR_RUNS: '10',
      LOCAL_FLOOR_CONCURRENCY: '5',
    });
    expect(code, `${stdout}\n${stderr.slice(-4000)}`).toBe(0);
    expect(stdout).toMatch(
      /^floorWorkflow +[\d.]+ runs\/s \(1\.00× the floor\); CPU ms per run: Temporal dev server [\d.]+, bench \(worker and client\) [\d.]+$/m,
    );
    expect(stdout).toMatch(
      /^localFloorWorkflow +[\d.]+ runs\/s \([\d.]+× the floor\); CPU ms per run: Temporal dev server [\d.]+/m,
    );
  }, 120_000);
});

describe('what our run costs the Temporal server (npm run bench:temporal-cost), shrunk', () => {
  it('prints every variant with its rate and CPU, and what one of its workflows left on the server', async () => {
    const { code, stdout, stderr } = await runScript('bench/temporal-cost.ts', [], {
      TEMPORAL_COST_ROUNDS: '1',
      TEMPORAL_COST_RUNS: '6',
      TEMPORAL_COST_CONCURRENCY: '3',
    });
    expect(code, `${stdout}\n${stderr.slice(-4000)}`).toBe(0);
    const row = (label: string) => {
      const line = stdout.split('\n').find((l) => l.startsWith(`${label} `));
      expect(line, stdout).toMatch(
        / [\d.]+ runs\/s; CPU ms per run: Temporal dev server [\d.]+, bench \(worker and client\) [\d.]+; server holds: /,
      );
      return line!.slice(line!.indexOf('server holds: '));
    };
    // The bare floor: 11 events, nothing of ours; each variant adds what its label says.
    expect(row('the floor')).toBe(
      'server holds: 11 events, 0 search attributes, RunStatus -, details none, input 0 B, priority 0',
    );
    expect(row('+ priority and fairness key')).toContain('priority 1');
    expect(row('+ input payload')).toMatch(/input [1-9]\d+ B/);
    expect(row('+ search attributes')).toContain('5 search attributes, RunStatus executing, details none');
    expect(row('+ summary and details')).toMatch(/0 search attributes, RunStatus -, details \d+ chars/);
    expect(row('+ RunStatus change and details at the end')).toContain(
      '12 events, 5 search attributes, RunStatus completed',
    );
    expect(row('all of them (our run on the server)')).toMatch(
      /12 events, 5 search attributes, RunStatus completed, details \d+ chars, input [1-9]\d+ B, priority 1/,
    );
  }, 120_000);
});

describe('BENCH_TEMPORAL_CPU (capTemporalCpu)', () => {
  const cpuGroup = (pid: number) =>
    readFileSync(`/proc/${pid}/cgroup`, 'utf8')
      .split('\n')
      .find((l) => /(^0::|[:,]cpu[,:])/.test(l)) ?? '';

  it.skipIf(process.getuid?.() !== 0)(
    'puts the process in a cgroup of its own with that CPU quota, and undoes it',
    () => {
      const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
      const pid = sleeper.pid!;
      try {
        const undo = capTemporalCpu(pid, 0.5);
        expect(cpuGroup(pid)).toContain(`/ars-bench-temporal-${pid}`);
        const v2 = cpuGroup(pid).startsWith('0::');
        const group = v2 ? `/sys/fs/cgroup/ars-bench-temporal-${pid}` : `/sys/fs/cgroup/cpu/ars-bench-temporal-${pid}`;
        const quota = v2
          ? readFileSync(`${group}/cpu.max`, 'utf8').trim()
          : readFileSync(`${group}/cpu.cfs_quota_us`, 'utf8').trim();
        expect(quota).toBe(v2 ? '50000 100000' : '50000');
        undo();
        expect(cpuGroup(pid)).not.toContain('ars-bench-temporal');
        expect(() => readFileSync(`${group}/cgroup.procs`)).toThrow();
      } finally {
        sleeper.kill();
      }
      expect(() => capTemporalCpu(pid, 1.5)).toThrow(/between 0 and 1/);
    },
  );
});
