import { createDb } from '../src/db/client.ts';
import { startStack } from '../test/support/stack.ts';
import { exchangeKey, readTimedSse, request, type BenchCaller, type TimedFrame } from './client.ts';
import { startExtraApi, startExtraWorker, type ExtraProcess } from './extra-processes.ts';
import { busyProcesses, describeMachine, loadAverage } from './machine.ts';
import { distribution, percentile, perSecond, renderTable, type Row } from './stats.ts';
import { createBenchTenant } from './tenant.ts';
import { waitForWorker } from './worker-ready.ts';
import { BENCH_STACK_ENV } from './stack-env.ts';
import { BENCH_PROCESSES, prepareBenchProcesses } from './build.ts';

/**
 * `npm run bench:scale`: the same runs against 1 api + 1 worker, then against 2 apis +
 * 2 workers (the second pair started beside the first, as replicas on another machine
 * would be: same database, Temporal and task queue; the worker its own sandbox host).
 * Prints runs/s and event relay latency (stored → received by the client) per process
 * count, then 1 + 1 once more (warm, as the 2 + 2 phase was). Asserts nothing. Processes compiled unless BENCH_PROCESSES=tsx (bench/build.ts). SCALE_RUNS (default 60) runs, SCALE_CONCURRENCY (default 12) at a time.
 */
const RUNS = Number(process.env.SCALE_RUNS ?? 60);
const CONCURRENCY = Number(process.env.SCALE_CONCURRENCY ?? 12);
/** Runs before each measured phase, so JIT and pools of new processes are warm (a cold worker is several times slower). */
const WARM_UP = Number(process.env.SCALE_WARM_UP ?? 24);
const MESSAGE = 'Hello! How are you today? Please answer in a few words.';

const began = performance.now();
const log = (m: string) => console.error(`[bench:scale ${((performance.now() - began) / 1000).toFixed(1)}s] ${m}`);
const loadBefore = loadAverage();
const busyBefore = await busyProcesses();
const env = BENCH_STACK_ENV;
const processes = prepareBenchProcesses(log);
log(`starting the stack (1 api + 1 worker), ${processes}`);
const stack = await startStack({ purpose: 'bench', env, processes: BENCH_PROCESSES });
const db = createDb(stack.databaseUrl, 2);
const extras: ExtraProcess[] = [];
let exitCode = 0;

/** One streamed run through `apiUrl`; its frames stamped on arrival. */
async function streamedRun(who: BenchCaller, apiUrl: string): Promise<TimedFrame[]> {
  return readTimedSse(
    await request({ ...who, apiUrl }, 'POST', '/api/run', {
      messages: [{ role: 'user', content: MESSAGE }],
      mode: 'fast',
    }),
  );
}

/** `count` runs, `CONCURRENCY` in flight, spread round-robin over the apis; every frame's relay lag collected. */
async function load(who: BenchCaller, apis: string[], count: number): Promise<{ ms: number; lags: number[] }> {
  const lags: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        for (const f of await streamedRun(who, apis[i % apis.length]!))
          if (f.type !== 'HEARTBEAT') lags.push(f.receivedAt - f.timestamp);
      }
    }),
  );
  return { ms: performance.now() - t0, lags };
}

async function phase(label: string, who: BenchCaller, apis: string[]): Promise<Row[]> {
  await load(who, apis, WARM_UP);
  log(`${label}: ${RUNS} runs, ${CONCURRENCY} at a time`);
  const { ms, lags } = await load(who, apis, RUNS);
  return [
    {
      section: label,
      metric: `${RUNS} streamed runs, ${CONCURRENCY} in flight: all done`,
      n: RUNS,
      note: `${perSecond(RUNS, ms, 'runs')} (${(ms / 1000).toFixed(1)} s)`,
    },
    distribution(
      label,
      'event stored → received by the client (relay latency)',
      lags,
      `p99 ${Math.round(
        percentile(
          lags.sort((a, b) => a - b),
          99,
        ),
      )} ms`,
    ),
  ];
}

try {
  const tenant = await createBenchTenant(db);
  const who: BenchCaller = {
    apiUrl: stack.apiUrl,
    token: await exchangeKey(stack.apiUrl, tenant.ownerKey),
    agentId: tenant.agentId,
  };
  await waitForWorker({ address: stack.temporalAddress }, stack.taskQueue);
  const rows: Row[] = [];
  rows.push(...(await phase('1 api + 1 worker', who, [stack.apiUrl])));
  log('starting a second api and a second worker');
  const track = async (starting: Promise<ExtraProcess>) => {
    const proc = await starting;
    extras.push(proc); // stopped in `finally`, even when the other one fails to start
    return proc;
  };
  const [api2, worker2] = await Promise.all([track(startExtraApi(stack, env)), track(startExtraWorker(stack, env))]);
  rows.push(...(await phase('2 apis + 2 workers', who, [stack.apiUrl, api2.url!])));
  const busyAfter = await busyProcesses([stack.api.pid!, stack.worker.pid!, api2.pid, worker2.pid]);
  // The first pair again, now as warm as it was in the 2 + 2 phase: separates scaling from warm-up and load drift.
  log('stopping the second api and worker');
  await Promise.all(extras.splice(0).map((p) => p.stop()));
  rows.push(...(await phase('1 api + 1 worker, again', who, [stack.apiUrl])));

  console.log(`\nAgent Run Service scale-out benchmark (${new Date().toISOString()})`);
  console.log(`machine: ${describeMachine()}; load average before ${loadBefore}, after ${loadAverage()}`);
  console.log(
    `other processes using > 5% of a core: before: ${busyBefore.join('; ') || 'none'}; after: ${busyAfter.join('; ') || 'none'}`,
  );
  console.log(
    `one Temporal dev server and one PostgreSQL for both setups; api and worker processes ${processes}; offline model; message "${MESSAGE}"\n`,
  );
  console.log(renderTable(rows));
} catch (err) {
  console.error('bench:scale failed:', err);
  exitCode = 1;
} finally {
  await Promise.all(extras.map((p) => p.stop().catch(() => {})));
  await db.$disconnect().catch(() => {});
  await stack.teardown().then(
    () => log('stack torn down, database dropped'),
    (err: unknown) => log(`teardown failed: ${String(err)}`),
  );
}
process.exit(exitCode);
