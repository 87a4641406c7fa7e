import { createDb } from '../src/db/client.ts';
import { startStack } from '../test/support/stack.ts';
import { exchangeKey, type BenchCaller } from './client.ts';
import { BENCH_PROCESSES, prepareBenchProcesses } from './build.ts';
import { describeMachine, loadAverage } from './machine.ts';
import { openStreamsMemory } from './sse-streams.ts';
import { BENCH_STACK_ENV } from './stack-env.ts';
import { markdownTable } from './stats.ts';
import { createBenchTenant } from './tenant.ts';
import { waitForWorker } from './worker-ready.ts';

/**
 * `npm run bench:streams`: only `npm run bench`'s open-streams phase, for a quick reading of what an
 * open SSE stream costs the api: STREAMS_OPEN (1,000) task streams held open on one api, its RSS
 * per stream 2 s and STREAMS_SETTLE_MS (10 s) after the last opened. Asserts nothing.
 */
const STREAMS = Number(process.env.STREAMS_OPEN ?? 1000);
const SETTLE_MS = Number(process.env.STREAMS_SETTLE_MS ?? 10_000);

const began = performance.now();
const log = (m: string) => console.error(`[bench:streams ${((performance.now() - began) / 1000).toFixed(1)}s] ${m}`);
const loadBefore = loadAverage();
const processes = prepareBenchProcesses(log);
log(`starting the stack, api and worker ${processes}`);
const stack = await startStack({ purpose: 'bench', env: BENCH_STACK_ENV, processes: BENCH_PROCESSES });
const db = createDb(stack.databaseUrl, 2);
let exitCode = 0;
try {
  const tenant = await createBenchTenant(db);
  const who: BenchCaller = {
    apiUrl: stack.apiUrl,
    token: await exchangeKey(stack.apiUrl, tenant.ownerKey),
    agentId: tenant.agentId,
  };
  await waitForWorker({ address: stack.temporalAddress }, stack.taskQueue);
  log(`${STREAMS} open SSE streams on the api`);
  const s = await openStreamsMemory(db, tenant, who, stack.api.pid!, STREAMS, SETTLE_MS);
  console.log(`\nAgent Run Service open-streams benchmark (${new Date().toISOString()})`);
  console.log(`machine: ${describeMachine()}; load average before ${loadBefore}, after ${loadAverage()}`);
  console.log(`one api ${processes}; GET /api/tasks/{id}/stream on runs that wait, 10 streams a run\n`);
  const kb = (n: number) => `${n.toFixed(1)} KB`;
  console.log(
    markdownTable(
      ['metric', 'value', 'goal', 'met'],
      [
        [
          `api RSS before → with ${s.streams} streams open, 2 s → ${SETTLE_MS / 1000} s after the last opened`,
          `${s.beforeMiB.toFixed(0)} → ${s.afterMiB.toFixed(0)} → ${s.settledMiB.toFixed(0)} MiB`,
          '—',
          '—',
        ],
        [
          `api RSS per open stream, ${SETTLE_MS / 1000} s after the last opened`,
          kb(s.settledKbPerStream),
          '≤ 25 KB',
          s.settledKbPerStream <= 25 ? 'yes' : '**no**',
        ],
        ['… 2 s after the last opened (garbage of opening them included)', kb(s.kbPerStream), '—', '—'],
        ['… the first 100 streams of the api (warm-up, code loaded on first use)', kb(s.coldKbPerStream), '—', '—'],
      ],
    ),
  );
} catch (err) {
  console.error('bench:streams failed:', err);
  exitCode = 1;
} finally {
  await db.$disconnect().catch(() => {});
  await stack.teardown().then(
    () => log('stack torn down, database dropped'),
    (err: unknown) => log(`teardown failed: ${String(err)}`),
  );
}
process.exit(exitCode);
