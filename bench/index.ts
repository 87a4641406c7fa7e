import { createDb } from '../src/db/client.ts';
import { startStack } from '../test/support/stack.ts';
import { exchangeKey, type BenchCaller } from './client.ts';
import { benchAppend, benchPaging } from './event-log.ts';
import { benchFanOut } from './fan-out.ts';
import { busyProcesses, describeMachine, loadAverage } from './machine.ts';
import { findTemporalServer, memoryRows, type Watched } from './proc.ts';
import { benchRunLatency, offlineModelDelayMs, RUN_MESSAGE } from './run-latency.ts';
import { renderTable, type Row } from './stats.ts';
import { createBenchTenant } from './tenant.ts';
import { waitForWorker } from './worker-ready.ts';

/**
 * `npm run bench`: brings up the real stack (as the tests do), measures the event log,
 * history paging, run latency, SSE fan-out and process memory, prints one table, and
 * tears everything down. It asserts nothing. All traffic stays on 127.0.0.1.
 */
const began = performance.now();
const log = (m: string) => console.error(`[bench ${((performance.now() - began) / 1000).toFixed(1)}s] ${m}`);
const database = process.env.DATABASE_URL ? `DATABASE_URL (${new URL(process.env.DATABASE_URL).host})` : 'embedded PostgreSQL';
const loadBefore = loadAverage();
const busyBefore = await busyProcesses();

log(`starting the stack on ${database}`);
const stack = await startStack({
  purpose: 'bench',
  env: {
    LOG_LEVEL: 'warn',
    MODEL_PROVIDER: 'offline',
    // One user makes every request here: the per-user limits (30 runs, 100 task requests a minute) would stop the bench.
    RATE_LIMIT_RUNS_PER_MINUTE: '100000',
    RATE_LIMIT_TASKS_PER_MINUTE: '100000',
    RATE_LIMIT_EVENTS_PER_MINUTE: '100000',
    SSE_MAX_STREAMS_PER_USER: '100000',
  },
});
const db = createDb(stack.databaseUrl, 4);
const pids: Watched = { api: stack.api.pid!, worker: stack.worker.pid! };
const temporalPid = findTemporalServer(stack.temporalAddress);
if (temporalPid !== undefined) pids['Temporal dev server'] = temporalPid;
let exitCode = 0;
try {
  const tenant = await createBenchTenant(db);
  const who: BenchCaller = { apiUrl: stack.apiUrl, token: await exchangeKey(stack.apiUrl, tenant.ownerKey), agentId: tenant.agentId };
  const rows: Row[] = [];
  await waitForWorker({ address: stack.temporalAddress }, stack.taskQueue);
  // Let start-up work (JIT, pools, first polls) settle before the idle reading.
  await new Promise((r) => setTimeout(r, 2000));
  const memory = memoryRows('idle after start-up', pids);

  log('a. event log appends');
  rows.push(...(await benchAppend(db, tenant)));
  log('b. paging a 10,000-event history');
  rows.push(...(await benchPaging(db, tenant, who)));
  log('c. run latency, sequential then concurrent');
  rows.push(...(await benchRunLatency(who, pids, () => memory.push(...memoryRows('after 20 concurrent runs', pids)))));
  log('d. relay fan-out to 1, then 50 readers');
  rows.push(...(await benchFanOut(who)));
  rows.push(...memory, ...memoryRows('at the end', pids));
  const busyAfter = await busyProcesses(Object.values(pids));

  console.log(`\nAgent Run Service benchmark (${new Date().toISOString()})`);
  console.log(`machine: ${describeMachine()}; load average before ${loadBefore}, after ${loadAverage()}`);
  console.log(`other processes using > 5% of a core: just before the bench: ${busyBefore.join('; ') || 'none'}; just after: ${busyAfter.join('; ') || 'none'}`);
  console.log(`database: ${database}; Temporal dev server (TestWorkflowEnvironment.createLocal); api + worker as child processes`);
  console.log(`model: offline, as shipped: ${offlineModelDelayMs()} ms of each run in c. is its built-in 15 ms per word (message "${RUN_MESSAGE}")\n`);
  console.log(renderTable(rows));
  console.log(`\ntotal bench time ${((performance.now() - began) / 1000).toFixed(0)} s (including stack start-up and teardown below)`);
} catch (err) {
  console.error('bench failed:', err);
  exitCode = 1;
} finally {
  await db.$disconnect().catch(() => {});
  await stack.teardown().then(
    () => log('stack torn down, database dropped'),
    (err: unknown) => log(`teardown failed: ${String(err)}`),
  );
}
// Keep-alive sockets and pools would keep the process alive; everything is closed above.
process.exit(exitCode);
