import { createDb, poolOf } from '../src/db/client.ts';
import { startStack } from '../test/support/stack.ts';
import { exchangeKey, request, type BenchCaller } from './client.ts';
import { BENCH_PROCESSES, prepareBenchProcesses } from './build.ts';
import { busyProcesses, describeMachine, loadAverage } from './machine.ts';
import { inFlight } from './pool.ts';
import { databaseBackendPids, findTemporalServer, residentMemory, rssSampler, summedMemory } from './proc.ts';
import { BENCH_STACK_ENV } from './stack-env.ts';
import { markdownTable, ratio } from './stats.ts';
import { createBenchTenant } from './tenant.ts';
import { waitForWorker } from './worker-ready.ts';

/**
 * `npm run bench:waiting`: WAITING_RUNS (10,000) background runs that each ask a human for a text
 * input (the offline model's `/tool request_user_input` directive), started WAITING_CONCURRENCY (50)
 * at a time; waits until every one waits, answers them all, waits until every one completed. Prints
 * the memory of the worker, the api, the Temporal dev server and the database's PostgreSQL backends
 * at idle, while all wait (twice: soon after the last began to wait, and a minute later) and after,
 * how many runs reached each stage (0 lost is the goal), and the time from the last answer to the
 * last RUN_FINISHED. Asserts nothing. Progress goes to stderr.
 */
const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const RUNS = knob('WAITING_RUNS', 10_000);
const CONCURRENCY = knob('WAITING_CONCURRENCY', 50);
/** How long the memory readings wait after a stage is reached, so what it left behind is collected. */
const SETTLE_MS = knob('WAITING_SETTLE_MS', 10_000);
/**
 * A second reading while all wait, this long after the first: the steady state of a run that waits for hours, once
 * V8 has given back the heap the burst of starts grew (its memory reducer runs when the isolate is quiet).
 */
const QUIET_MS = knob('WAITING_QUIET_S', 60) * 1000;
/** A stage (all waiting, all finished) is given up after this long without progress. */
const STALL_MS = knob('WAITING_STALL_S', 180) * 1000;
const ASK = `Please help.\n/tool request_user_input ${JSON.stringify({ input_type: 'text', prompt: 'Name?' })}`;
/** Runs through the whole path before the idle reading. */
const WARM_UP = knob('WAITING_WARM_UP', 10);
const CACHE = process.env.WORKER_MAX_CACHED_WORKFLOWS ?? '100 (the default)';

const began = performance.now();
const log = (m: string) => console.error(`[bench:waiting ${((performance.now() - began) / 1000).toFixed(1)}s] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadBefore = loadAverage();
const busyBefore = await busyProcesses();
const processes = prepareBenchProcesses(log);
log(`starting the stack, api and worker ${processes}`);
const stack = await startStack({ purpose: 'bench', env: BENCH_STACK_ENV, processes: BENCH_PROCESSES });
const db = createDb(stack.databaseUrl, 2);
const pool = poolOf(db);
const databaseName = new URL(stack.databaseUrl).pathname.slice(1);
const temporalPid = findTemporalServer(stack.temporalAddress);
let exitCode = 0;

const count = async (sql: string): Promise<number> => Number((await pool.query<{ n: string }>(sql)).rows[0]!.n);

/** Polls `read` every second until it reaches `target`; gives up after STALL_MS without progress. Logs progress. */
async function until(what: string, target: number, read: () => Promise<number>): Promise<number> {
  let last = -1;
  let progressedAt = performance.now();
  for (;;) {
    const now = await read();
    if (now !== last) {
      progressedAt = performance.now();
      log(`${what}: ${now}/${target}`);
      last = now;
    }
    if (now >= target) return now;
    if (performance.now() - progressedAt > STALL_MS) {
      log(`${what}: no progress for ${STALL_MS / 1000} s, giving up at ${now}/${target}`);
      return now;
    }
    await sleep(1000);
  }
}

/** One reading of every process's memory (MiB): RSS, and for PostgreSQL's backends RSS and PSS summed. */
async function reading() {
  const postgres = summedMemory(await databaseBackendPids(pool, databaseName));
  return {
    worker: residentMemory(stack.worker.pid!).rss,
    api: residentMemory(stack.api.pid!).rss,
    temporal: temporalPid === undefined ? Number.NaN : residentMemory(temporalPid).rss,
    postgres,
  };
}
type Reading = Awaited<ReturnType<typeof reading>>;

/** Logs a line every few seconds while a phase of many requests runs. */
function progress(what: string, total: number, done: () => number): () => void {
  const timer = setInterval(() => log(`${what}: ${done()}/${total}`), 5000);
  return () => clearInterval(timer);
}

/** Starts `n` runs that ask for input, CONCURRENCY at a time. */
async function startAsking(who: BenchCaller, n: number) {
  let started = 0;
  const stopLog = progress('runs started', n, () => started);
  const { results, wallMs } = await inFlight(n, CONCURRENCY, async () => {
    const res = await request(who, 'POST', '/api/run/async', { messages: [{ role: 'user', content: ASK }] });
    if (res.status !== 202) throw new Error(`POST /api/run/async: ${res.status} ${await res.text()}`);
    await res.body?.cancel();
    started++;
  });
  stopLog();
  const refused = results.filter((r) => r.status === 'rejected');
  if (refused.length > 0) log(`${refused.length} starts failed, the first: ${String(refused[0]!.reason)}`);
  return { accepted: n - refused.length, refused: refused.length, wallMs };
}

/** Answers every pending input request, CONCURRENCY at a time; `lastAnswerAt` is when the last answer was accepted (epoch ms). */
async function answerPending(who: BenchCaller) {
  const pending = (
    await pool.query<{ id: string; run_id: string; task_id: string }>(
      `SELECT id, run_id, task_id FROM input_requests WHERE status = 'pending'`,
    )
  ).rows;
  log(`answering ${pending.length} requests, ${CONCURRENCY} at a time`);
  let answered = 0;
  let lastAnswerAt = 0;
  const stopLog = progress('answered', pending.length, () => answered);
  const { results, wallMs } = await inFlight(pending.length, CONCURRENCY, async (i) => {
    const { id, run_id, task_id } = pending[i]!;
    const res = await request(who, 'POST', `/api/tasks/${task_id}/input`, {
      request_id: id,
      run_id,
      input_type: 'text',
      value: 'Ada',
    });
    if (res.status !== 200) throw new Error(`POST /api/tasks/{id}/input: ${res.status} ${await res.text()}`);
    await res.body?.cancel();
    lastAnswerAt = Math.max(lastAnswerAt, Date.now());
    answered++;
  });
  stopLog();
  const failed = results.filter((r) => r.status === 'rejected');
  if (failed.length > 0) log(`${failed.length} answers failed, the first: ${String(failed[0]!.reason)}`);
  return { answered, wallMs, lastAnswerAt };
}

const pendingCount = () => count(`SELECT count(*) AS n FROM input_requests WHERE status = 'pending'`);
const completedCount = () => count(`SELECT count(*) AS n FROM runs WHERE status = 'completed'`);

try {
  const tenant = await createBenchTenant(db);
  const who: BenchCaller = {
    apiUrl: stack.apiUrl,
    token: await exchangeKey(stack.apiUrl, tenant.ownerKey),
    agentId: tenant.instantAgentId,
  };
  await waitForWorker({ address: stack.temporalAddress }, stack.taskQueue);
  await sleep(3000);
  const afterStartUp = await reading();
  // A few runs through the whole path first, so "idle" is a worker and api that have run it (code loaded, JIT, pools).
  log(`warm-up: ${WARM_UP} runs that ask and are answered`);
  await startAsking(who, WARM_UP);
  await until('warm-up runs waiting', WARM_UP, pendingCount);
  await answerPending(who);
  const warmedUp = await until('warm-up runs completed', WARM_UP, completedCount);
  await sleep(3000);
  const idle = await reading();
  const workerPeak = rssSampler(stack.worker.pid!, 500);
  const apiPeak = rssSampler(stack.api.pid!, 500);

  log(`starting ${RUNS} runs that ask for input, ${CONCURRENCY} at a time`);
  const starts = await startAsking(who, RUNS);
  const { accepted } = starts;
  const waitingFrom = performance.now();
  const waiting = await until('runs waiting for input', accepted, pendingCount);
  const allWaitingMs = performance.now() - waitingFrom + starts.wallMs;
  log(`all waiting: letting the processes settle ${SETTLE_MS / 1000} s`);
  await sleep(SETTLE_MS);
  const whileWaiting = await reading();
  const workerPeakWaiting = workerPeak();
  const apiPeakWaiting = apiPeak();
  log(`all waiting: a second reading in ${QUIET_MS / 1000} s`);
  await sleep(QUIET_MS);
  const quiet = await reading();
  const workerPeakAfter = rssSampler(stack.worker.pid!, 500);
  const apiPeakAfter = rssSampler(stack.api.pid!, 500);

  const answers = await answerPending(who);
  const { answered, lastAnswerAt } = answers;

  const completed = (await until('runs completed', accepted + warmedUp, completedCount)) - warmedUp;
  const statuses = (
    await pool.query<{ status: string; n: string }>(`SELECT status, count(*) AS n FROM runs GROUP BY status ORDER BY 1`)
  ).rows
    .map((r) => `${r.status} ${r.n}`)
    .join(', ');
  const lastFinished = (
    await pool.query<{ at: Date | null }>(`SELECT max(created_at) AS at FROM run_events WHERE type = 'RUN_FINISHED'`)
  ).rows[0]!.at;
  log(`all finished: letting the processes settle ${SETTLE_MS / 1000} s`);
  await sleep(SETTLE_MS);
  const after = await reading();
  const workerPeakFinishing = workerPeakAfter();
  const apiPeakFinishing = apiPeakAfter();
  const busyAfter = await busyProcesses(
    [stack.api.pid!, stack.worker.pid!, temporalPid ?? 0].filter((pid) => pid !== 0),
  );

  const mib = (n: number) => (Number.isNaN(n) ? 'not found' : `${n.toFixed(0)} MiB`);
  const pg = (r: Reading) =>
    `${r.postgres.rss.toFixed(0)} MiB RSS, ${r.postgres.pss.toFixed(0)} MiB PSS (${r.postgres.processes} backends)`;
  console.log(`\nAgent Run Service waiting-runs benchmark (${new Date().toISOString()})`);
  console.log(`machine: ${describeMachine()}; load average before ${loadBefore}, after ${loadAverage()}`);
  console.log(
    `other processes using > 5% of a core: before: ${busyBefore.join('; ') || 'none'}; after: ${busyAfter.join('; ') || 'none'}`,
  );
  console.log(
    `one api + one worker ${processes}; worker workflow cache WORKER_MAX_CACHED_WORKFLOWS ${CACHE}; offline model (instant); ` +
      `each run asks request_user_input (text) and is answered "Ada"; ${CONCURRENCY} requests in flight; readings ${SETTLE_MS / 1000} s after each stage\n`,
  );
  console.log(
    markdownTable(
      [
        'process',
        'after start-up',
        `idle (after ${WARM_UP} warm-up runs)`,
        `all ${waiting} waiting`,
        `${QUIET_MS / 1000} s later`,
        'after all finished',
        'highest while starting and waiting',
      ],
      [
        [
          'worker RSS',
          mib(afterStartUp.worker),
          mib(idle.worker),
          mib(whileWaiting.worker),
          mib(quiet.worker),
          mib(after.worker),
          mib(workerPeakWaiting),
        ],
        [
          'api RSS',
          mib(afterStartUp.api),
          mib(idle.api),
          mib(whileWaiting.api),
          mib(quiet.api),
          mib(after.api),
          mib(apiPeakWaiting),
        ],
        [
          'Temporal dev server RSS',
          mib(afterStartUp.temporal),
          mib(idle.temporal),
          mib(whileWaiting.temporal),
          mib(quiet.temporal),
          mib(after.temporal),
          '—',
        ],
        [
          "PostgreSQL: the database's backends",
          pg(afterStartUp),
          pg(idle),
          pg(whileWaiting),
          pg(quiet),
          pg(after),
          '—',
        ],
      ],
    ),
  );
  console.log(
    `\nhighest while answering and finishing: worker ${mib(workerPeakFinishing)}, api ${mib(apiPeakFinishing)}\n`,
  );
  const lostRuns = accepted - completed;
  const sinceLastAnswer =
    lastFinished === null || lastAnswerAt === 0 ? Number.NaN : lastFinished.getTime() - lastAnswerAt;
  const workerRatio = whileWaiting.worker / idle.worker;
  const quietRatio = quiet.worker / idle.worker;
  console.log(
    markdownTable(
      ['target', 'ours', 'goal', 'met'],
      [
        [
          `runs started / waiting / answered / completed (lost)`,
          `${accepted}/${RUNS} / ${waiting} / ${answered} / ${completed} (${lostRuns + starts.refused})`,
          `all, 0 lost`,
          completed === RUNS ? 'yes' : '**no**',
        ],
        [
          `worker RSS while ${waiting} wait ÷ idle (after warm-up), ${SETTLE_MS / 1000} s after the last began to wait`,
          ratio(workerRatio),
          '≤ 1.5×',
          workerRatio <= 1.5 ? 'yes' : '**no**',
        ],
        [
          `… ${QUIET_MS / 1000} s later (the steady state of runs that wait)`,
          ratio(quietRatio),
          '≤ 1.5×',
          quietRatio <= 1.5 ? 'yes' : '**no**',
        ],
        [
          `api RSS while ${waiting} wait (highest)`,
          mib(apiPeakWaiting),
          '≤ 300 MiB',
          apiPeakWaiting <= 300 ? 'yes' : '**no**',
        ],
        [
          'last answer → last RUN_FINISHED',
          Number.isNaN(sinceLastAnswer) ? 'no run finished' : `${(sinceLastAnswer / 1000).toFixed(2)} s`,
          '—',
          '—',
        ],
      ],
    ),
  );
  console.log(
    `\nstarting all ${RUNS}: ${(starts.wallMs / 1000).toFixed(1)} s; start of the first → all waiting: ${(allWaitingMs / 1000).toFixed(1)} s; ` +
      `answering all: ${(answers.wallMs / 1000).toFixed(1)} s; runs by status at the end: ${statuses}`,
  );
} catch (err) {
  console.error('bench:waiting failed:', err);
  exitCode = 1;
} finally {
  await db.$disconnect().catch(() => {});
  await stack.teardown().then(
    () => log('stack torn down, database dropped'),
    (err: unknown) => log(`teardown failed: ${String(err)}`),
  );
}
process.exit(exitCode);
