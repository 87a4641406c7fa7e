import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ensureTemporalBinary } from '../src/embedded/temporal-dev-server.ts';
import { Floor, type FloorWorkflowType } from './floor/measure.ts';
import { describeMachine } from './machine.ts';
import { perRun } from './proc.ts';
import { alternatingRounds } from './floor/rounds.ts';

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
  const shape = { rounds: ROUNDS, runs: RUNS, concurrency: CONCURRENCY };
  const totals = await alternatingRounds(
    floor,
    env.address,
    TYPES.map((type) => ({ type })),
    shape,
  );
  console.log(`${describeMachine()}; ${ROUNDS} rounds of ${RUNS} runs each, ${CONCURRENCY} in flight`);
  const base = totals[0]!.runsPerSecond;
  for (const [i, { runsPerSecond, cpu, runs }] of totals.entries()) {
    console.log(
      `${TYPES[i]!.padEnd(20)} ${runsPerSecond.toFixed(1).padStart(6)} runs/s (${(runsPerSecond / base).toFixed(2)}× the floor); CPU ms per run: ${perRun(cpu, runs)}`,
    );
  }
} finally {
  await floor.stop();
  await env.teardown();
}
