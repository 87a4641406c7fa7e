import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ensureTemporalBinary } from '../src/embedded/temporal-dev-server.ts';
import { Floor, type FloorWorkflowType } from './floor/measure.ts';
import { describeMachine } from './machine.ts';
import { rate } from './pool.ts';
import { cpuMeter, findTemporalServer, perRun } from './proc.ts';

/**
 * `npm run bench:local-floor`: Temporal's floor (a bare workflow running one activity) against
 * the same workflow with a local activity, on one dev server, in alternating closed-loop rounds.
 * It shows what moving a run's model step into a local activity could gain, the lever
 * docs/performance.md weighs and does not take. Knobs: LOCAL_FLOOR_CONCURRENCY (50), LOCAL_FLOOR_ROUNDS (4),
 * LOCAL_FLOOR_RUNS (100 a round). Prints numbers, asserts nothing.
 */
const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CONCURRENCY = knob('LOCAL_FLOOR_CONCURRENCY', 50);
const ROUNDS = knob('LOCAL_FLOOR_ROUNDS', 4);
const RUNS = knob('LOCAL_FLOOR_RUNS', 100);
const TYPES: FloorWorkflowType[] = ['floorWorkflow', 'localFloorWorkflow'];

Runtime.install({ logger: new DefaultLogger('WARN') });
const env = await TestWorkflowEnvironment.createLocal({
  server: {
    executable: { type: 'existing-path', path: ensureTemporalBinary() },
    ip: '127.0.0.1',
    log: { format: 'pretty', level: 'error' },
  },
});
const floor = await Floor.start(env.address);
try {
  const temporalPid = findTemporalServer(env.address);
  if (temporalPid === undefined) throw new Error(`no Temporal dev server found at ${env.address}`);
  const watched = { 'Temporal dev server': temporalPid, 'bench (worker and client)': process.pid };
  for (const type of TYPES) await floor.throughput(RUNS, CONCURRENCY, type); // warm-up
  const totals = new Map(TYPES.map((type) => [type, { wallMs: 0, cpu: {} as Record<string, number> }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const type of TYPES) {
      const meter = cpuMeter(watched);
      const wallMs = await floor.throughput(RUNS, CONCURRENCY, type);
      const cpu = meter();
      const total = totals.get(type)!;
      total.wallMs += wallMs;
      for (const [name, ms] of Object.entries(cpu)) total.cpu[name] = (total.cpu[name] ?? 0) + ms;
    }
  }
  console.log(`${describeMachine()}; ${ROUNDS} rounds of ${RUNS} runs each, ${CONCURRENCY} in flight`);
  const runs = ROUNDS * RUNS;
  const base = rate(runs, totals.get('floorWorkflow')!.wallMs);
  for (const [type, { wallMs, cpu }] of totals) {
    const runsPerSecond = rate(runs, wallMs);
    console.log(
      `${type.padEnd(20)} ${runsPerSecond.toFixed(1).padStart(6)} runs/s (${(runsPerSecond / base).toFixed(2)}× the floor); CPU ms per run: ${perRun(cpu, runs)}`,
    );
  }
} finally {
  await floor.stop();
  await env.teardown();
}
