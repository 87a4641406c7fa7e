import { Client, Connection } from '@temporalio/client';
import { createDb, poolOf } from '../src/db/client.ts';
import { fairnessFlags } from '../src/embedded/temporal-dev-server.ts';
import { startStack, type Stack } from '../test/support/stack.ts';
import { exchangeKey, readTimedSse, request, type BenchCaller, type TimedFrame } from './client.ts';
import { BENCH_PROCESSES, prepareBenchProcesses } from './build.ts';
import { busyProcesses, describeMachine, loadAverage } from './machine.ts';
import { inFlight } from './pool.ts';
import { timedRun } from './run-latency.ts';
import { describeLegs, runLegs, type Legs } from './run-legs.ts';
import { BENCH_STACK_ENV } from './stack-env.ts';
import { distribution, fmt, markdownTable, percentileOf, ratio, renderTable, type Row } from './stats.ts';
import { createBenchTenant } from './tenant.ts';
import { setOrgMaxConcurrentRuns } from '../src/db/orgs.ts';
import { waitForWorker } from './worker-ready.ts';

/**
 * `npm run bench:fairness`: a noisy neighbour. Org B starts one streamed run a second
 * (FAIRNESS_B_RUNS, 20) on an idle service; then org A starts FAIRNESS_BURST (2,000) background runs
 * at once (FAIRNESS_BURST_CONCURRENCY requests in flight) while B starts the same runs again. Prints
 * B's times under the burst against idle, as ratios, and A's runs by outcome (all must complete).
 * The whole is done once per Temporal server setting in FAIRNESS_SERVERS (default `fair,off`), each
 * on a stack of its own: `fair` is how `npm start` and compose run the server (fairness keys honoured,
 * and with them the priority matcher), `off` a stock server (first come, first served),
 * `priority` the priority matcher alone. FAIRNESS_B_KIND=background starts B's runs as background runs
 * too, so priority cannot put them first and only fairness keeps them from waiting. FAIRNESS_A_MAX_RUNS
 * gives A a plan limit of concurrent runs (the rest wait `pending` in our queue). Asserts nothing.
 */
const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const BURST = knob('FAIRNESS_BURST', 2000);
const BURST_CONCURRENCY = knob('FAIRNESS_BURST_CONCURRENCY', 200);
const B_RUNS = knob('FAIRNESS_B_RUNS', 20);
const B_INTERVAL_MS = knob('FAIRNESS_B_INTERVAL_MS', 1000);
/** Org A's plan limit of concurrent runs (unset: none), as `admin apply` sets it: its runs over it wait `pending`. */
const A_MAX_RUNS = process.env.FAIRNESS_A_MAX_RUNS ? Number(process.env.FAIRNESS_A_MAX_RUNS) : null;
/** A's runs are given up on after this long without one more ending. */
const STALL_MS = knob('FAIRNESS_STALL_S', 180) * 1000;
const WARM_UP = 3;
/** B's message: the offline model's paced answer (15 ms a word), as a person watching a stream sees it. */
const B_MESSAGE = 'Hi';
/**
 * `streamed` (default): B's runs are streamed POST /api/run, priority 1, ahead of A's background ones
 * (3) on a server with the priority matcher. `background`: B's runs start as A's do (POST
 * /api/run/async, priority 3) and the bench follows each on its task stream, so only fairness can
 * keep B from waiting behind A.
 */
const B_KIND = process.env.FAIRNESS_B_KIND ?? 'streamed';
if (B_KIND !== 'streamed' && B_KIND !== 'background')
  throw new Error(`FAIRNESS_B_KIND must be "streamed" or "background", not "${B_KIND}"`);
const A_MESSAGE = 'Summarize the quarterly numbers.';

const SERVERS: Record<string, { label: string; flags: string[] }> = {
  fair: { label: 'fairness on (matching.enableFairness, as npm start and compose run it)', flags: fairnessFlags() },
  priority: {
    label: 'priority keys only (matching.useNewMatcher), no fairness',
    flags: ['--dynamic-config-value', 'matching.useNewMatcher=true'],
  },
  off: { label: 'a stock server: neither (first come, first served)', flags: [] },
};
const SETTINGS = (process.env.FAIRNESS_SERVERS ?? 'fair,off').split(',').map((s) => s.trim());
for (const s of SETTINGS)
  if (!SERVERS[s]) throw new Error(`FAIRNESS_SERVERS: unknown "${s}" (one of ${Object.keys(SERVERS).join(', ')})`);

const began = performance.now();
const log = (m: string) => console.error(`[bench:fairness ${((performance.now() - began) / 1000).toFixed(1)}s] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One of B's runs: ms from just before its POST. */
interface BTiming {
  runId: string;
  /** Epoch ms, just before its POST. */
  startedAt: number;
  runStarted: number;
  /** The first event the worker wrote (RUN_STARTED and the first STATE_SNAPSHOT come from the api, with the run). */
  firstFromWorker: number;
  runFinished: number;
  /** A's runs stored and not yet ended when this one started: whether it met A's backlog. */
  aOpen?: number;
}

interface BSeries {
  timings: BTiming[];
  failed: number;
}

interface AOutcome {
  submitted: number;
  refused: number;
  /** Runs by status once none is left open, or STALL_MS passed. */
  byStatus: Record<string, number>;
  submitMs: number;
  /** Burst start → A's last RUN_FINISHED. */
  drainMs: number;
}

interface PhaseResult {
  setting: string;
  idle: BSeries;
  burst: BSeries;
  /** Where B's runs spent their time, from their workflow histories. */
  legs: { idle: Legs[]; burst: Legs[] };
  a: AOutcome;
}

/** One of B's runs, its frames stamped on arrival; `runStarted` and `runFinished` in ms from just before its POST. */
async function bRun(
  b: BenchCaller,
): Promise<{ runId: string; startedAt: number; runStarted: number; runFinished: number; frames: TimedFrame[] }> {
  if (B_KIND === 'streamed') return timedRun(b, B_MESSAGE);
  const startedAt = Date.now();
  const res = await request(b, 'POST', '/api/run/async', { messages: [{ role: 'user', content: B_MESSAGE }] });
  if (res.status !== 202) throw new Error(`POST /api/run/async: ${res.status} ${await res.text()}`);
  const { task_id, run_id } = (await res.json()) as { task_id: string; run_id: string };
  // The task stream starts from the run's first event, so RUN_STARTED is read even when stored before it opened.
  const frames = await readTimedSse(await request(b, 'GET', `/api/tasks/${task_id}/stream`));
  const at = (type: string) => {
    const frame = frames.find((f) => f.type === type);
    if (!frame) throw new Error(`run stream had no ${type}`);
    return frame.receivedAt - startedAt;
  };
  return { runId: run_id, startedAt, runStarted: at('RUN_STARTED'), runFinished: at('RUN_FINISHED'), frames };
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** A's runs by status, from the database. */
async function runsByStatus(stack: Stack & { pool: ReturnType<typeof poolOf> }, orgId: string) {
  const { rows } = await stack.pool.query<{ status: string; n: string }>(
    `SELECT r.status, count(*) AS n FROM runs r JOIN tasks t ON t.id = r.task_id WHERE t.org_id = $1 GROUP BY r.status`,
    [orgId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}
const openOf = (byStatus: Record<string, number>) =>
  Object.entries(byStatus)
    .filter(([status]) => !TERMINAL.has(status))
    .reduce((sum, [, n]) => sum + n, 0);

/** B's runs, one every B_INTERVAL_MS (started on the tick even when the previous one has not ended). */
async function bSeries(b: BenchCaller, count: number, aOpen?: () => Promise<number>): Promise<BSeries> {
  const t0 = performance.now();
  const runs: Promise<BTiming | undefined>[] = [];
  for (let i = 0; i < count; i++) {
    await sleep(Math.max(0, t0 + i * B_INTERVAL_MS - performance.now()));
    const open = aOpen?.();
    runs.push(
      bRun(b).then(
        async (t) => {
          const fromWorker = t.frames.filter((f) => f.type !== 'HEARTBEAT')[2];
          return {
            runId: t.runId,
            startedAt: t.startedAt,
            runStarted: t.runStarted,
            firstFromWorker: fromWorker ? fromWorker.receivedAt - t.startedAt : Number.NaN,
            runFinished: t.runFinished,
            aOpen: await open,
          };
        },
        (err: unknown) => {
          log(`a run of B failed: ${String(err)}`);
          return undefined;
        },
      ),
    );
  }
  const done = await Promise.all(runs);
  const timings = done.filter((t): t is BTiming => t !== undefined);
  return { timings, failed: count - timings.length };
}

async function phase(setting: string): Promise<PhaseResult> {
  log(`${setting}: starting a stack, Temporal dev server ${SERVERS[setting]!.label}`);
  const started = await startStack({
    purpose: 'bench',
    env: BENCH_STACK_ENV,
    processes: BENCH_PROCESSES,
    temporalFlags: SERVERS[setting]!.flags,
  });
  const db = createDb(started.databaseUrl, 2);
  const stack = { ...started, pool: poolOf(db) };
  try {
    const [orgA, orgB] = [await createBenchTenant(db), await createBenchTenant(db)];
    if (A_MAX_RUNS !== null) await setOrgMaxConcurrentRuns(db, orgA.orgId, A_MAX_RUNS);
    const a: BenchCaller = {
      apiUrl: stack.apiUrl,
      token: await exchangeKey(stack.apiUrl, orgA.ownerKey),
      agentId: orgA.instantAgentId,
    };
    const b: BenchCaller = {
      apiUrl: stack.apiUrl,
      token: await exchangeKey(stack.apiUrl, orgB.ownerKey),
      agentId: orgB.agentId,
    };
    await waitForWorker({ address: stack.temporalAddress }, stack.taskQueue);
    const startA = async () => {
      const res = await request(a, 'POST', '/api/run/async', { messages: [{ role: 'user', content: A_MESSAGE }] });
      if (res.status !== 202) throw new Error(`POST /api/run/async: ${res.status} ${await res.text()}`);
      await res.body?.cancel();
    };
    // Warm-up: both paths once or more, so the idle series is not the processes' first runs.
    await inFlight(WARM_UP, 1, () => bRun(b));
    await inFlight(WARM_UP * 5, 5, startA);
    while (openOf(await runsByStatus(stack, orgA.orgId)) > 0) await sleep(250);
    const warmUpRuns = await runsByStatus(stack, orgA.orgId);

    log(`${setting}: B alone, ${B_RUNS} ${B_KIND} runs one every ${B_INTERVAL_MS} ms`);
    const idle = await bSeries(b, B_RUNS);

    log(
      `${setting}: A starts ${BURST} background runs (${BURST_CONCURRENCY} requests in flight) while B starts ${B_RUNS}`,
    );
    const burstAt = Date.now();
    const [submission, burst] = await Promise.all([
      inFlight(BURST, BURST_CONCURRENCY, startA),
      bSeries(b, B_RUNS, async () => openOf(await runsByStatus(stack, orgA.orgId))),
    ]);
    const refused = submission.results.filter((r) => r.status === 'rejected');
    if (refused.length > 0) log(`${refused.length} of A's starts failed, the first: ${String(refused[0]!.reason)}`);

    let byStatus = await runsByStatus(stack, orgA.orgId);
    let lastOpen = openOf(byStatus);
    let progressedAt = performance.now();
    while (lastOpen > 0 && performance.now() - progressedAt < STALL_MS) {
      log(`${setting}: A's runs still open: ${lastOpen}`);
      await sleep(2000);
      byStatus = await runsByStatus(stack, orgA.orgId);
      if (openOf(byStatus) < lastOpen) progressedAt = performance.now();
      lastOpen = openOf(byStatus);
    }
    const { rows } = await stack.pool.query<{ at: Date | null }>(
      `SELECT max(e.created_at) AS at FROM run_events e JOIN runs r ON r.id = e.run_id JOIN tasks t ON t.id = r.task_id
       WHERE t.org_id = $1 AND e.type = 'RUN_FINISHED'`,
      [orgA.orgId],
    );
    const temporal = new Client({ connection: await Connection.connect({ address: stack.temporalAddress }) });
    const legsOf = (series: BSeries) =>
      runLegs(
        temporal,
        series.timings.map((t) => ({
          workflowId: t.runId,
          startedAt: t.startedAt,
          doneAt: t.startedAt + t.runFinished,
        })),
      );
    const legs = { idle: await legsOf(idle), burst: await legsOf(burst) };
    await temporal.connection.close();
    // The warm-up's runs are A's too: counted out of the outcome.
    for (const [status, n] of Object.entries(warmUpRuns)) byStatus[status] = (byStatus[status] ?? 0) - n;
    return {
      setting,
      idle,
      burst,
      legs,
      a: {
        submitted: BURST,
        refused: refused.length,
        byStatus,
        submitMs: submission.wallMs,
        drainMs: rows[0]!.at ? rows[0]!.at.getTime() - burstAt : Number.NaN,
      },
    };
  } finally {
    await db.$disconnect().catch(() => {});
    await started.teardown().then(
      () => log(`${setting}: stack torn down, database dropped`),
      (err: unknown) => log(`teardown failed: ${String(err)}`),
    );
  }
}

const pick = (s: BSeries, key: 'runStarted' | 'firstFromWorker' | 'runFinished') =>
  s.timings.map((t) => t[key]).filter((ms) => !Number.isNaN(ms));

/**
 * "p50 / p95 / max" of burst ÷ idle, and whether the goal is met: p50 and p95 both, since with 20 runs
 * one slow idle run moves the idle p95 alone and would flatter that ratio.
 */
function ratios(idle: number[], burst: number[]): { text: string; met: boolean } {
  const r = [50, 95, 100].map((p) => percentileOf(burst, p) / percentileOf(idle, p));
  return { text: r.map(ratio).join(' / '), met: r[0]! <= 1.5 && r[1]! <= 1.5 };
}

let exitCode = 0;
try {
  const loadBefore = loadAverage();
  const busyBefore = await busyProcesses();
  const processes = prepareBenchProcesses(log);
  const results: PhaseResult[] = [];
  for (const setting of SETTINGS) results.push(await phase(setting));
  const busyAfter = await busyProcesses();

  console.log(`\nAgent Run Service fairness benchmark (${new Date().toISOString()})`);
  console.log(`machine: ${describeMachine()}; load average before ${loadBefore}, after ${loadAverage()}`);
  console.log(
    `other processes using > 5% of a core: before: ${busyBefore.join('; ') || 'none'}; after: ${busyAfter.join('; ') || 'none'}`,
  );
  console.log(
    `a stack per server setting (Temporal dev server, database, one api + one worker ${processes}); org A: ${BURST} background runs ` +
      `(POST /api/run/async, offline model "instant", ${BURST_CONCURRENCY} requests in flight${A_MAX_RUNS === null ? '' : `, at most ${A_MAX_RUNS} running at once: its plan limit`}); org B: ${B_RUNS} ${B_KIND === 'streamed' ? 'streamed runs (POST /api/run)' : 'background runs (POST /api/run/async) followed on their task stream'} ` +
      `one every ${B_INTERVAL_MS} ms (offline model, paced), first alone (idle), then from the moment A's burst starts\n`,
  );
  const summary: string[][] = [];
  const details: Row[] = [];
  for (const r of results) {
    const label = SERVERS[r.setting]!.label;
    for (const [key, what] of [
      ['runStarted', 'RUN_STARTED'],
      ['firstFromWorker', 'first event from the worker'],
      ['runFinished', 'RUN_FINISHED'],
    ] as const) {
      const idle = pick(r.idle, key);
      const burst = pick(r.burst, key);
      details.push(
        distribution(r.setting, `B: POST → ${what}, idle`, idle),
        distribution(r.setting, `B: POST → ${what}, during A's burst`, burst),
      );
      const { text, met } = ratios(idle, burst);
      summary.push([label, `B: POST → ${what}`, text, met ? 'yes' : '**no**']);
    }
    const p95 = (samples: number[]) => percentileOf(samples, 95);
    for (const [when, legs] of [
      ['idle', r.legs.idle],
      ["during A's burst", r.legs.burst],
    ] as const)
      details.push(
        { section: r.setting, metric: `B's legs ${when}, median ms`, n: legs.length, note: describeLegs(legs) },
        { section: r.setting, metric: `B's legs ${when}, p95 ms`, n: legs.length, note: describeLegs(legs, p95) },
      );
    const open = r.burst.timings.map((t) => t.aOpen ?? 0);
    const outcome = Object.entries(r.a.byStatus)
      .filter(([, n]) => n !== 0)
      .map(([status, n]) => `${status} ${n}`)
      .join(', ');
    const lost = r.a.submitted - (r.a.byStatus.completed ?? 0);
    summary.push([
      label,
      `A: ${r.a.submitted} runs completed (lost)`,
      `${r.a.byStatus.completed ?? 0} (${lost})`,
      lost === 0 ? 'yes' : '**no**',
    ]);
    details.push(
      {
        section: r.setting,
        metric: `A: ${r.a.submitted} starts, ${r.a.refused} refused; runs by status at the end`,
        n: r.a.submitted,
        note: outcome || 'none',
      },
      {
        section: r.setting,
        metric: "A: all starts answered / burst start → A's last RUN_FINISHED",
        n: r.a.submitted,
        note: `${(r.a.submitMs / 1000).toFixed(1)} s / ${(r.a.drainMs / 1000).toFixed(1)} s`,
      },
      {
        section: r.setting,
        metric: "A's runs not yet ended as each of B's runs started (B met A's backlog if > 0)",
        n: open.length,
        note: `${Math.min(...open)}–${Math.max(...open)}`,
      },
      {
        section: r.setting,
        metric: "B's runs failed: idle / during the burst",
        n: B_RUNS * 2,
        note: `${r.idle.failed} / ${r.burst.failed}`,
      },
    );
  }
  console.log(
    markdownTable(
      ['Temporal server', 'metric', 'during burst ÷ idle: p50 / p95 / max', 'goal ≤ 1.5× (p50 and p95) / 0 lost'],
      summary,
    ),
  );
  console.log('');
  console.log(renderTable(details));
  console.log(`\ntotal bench time ${fmt((performance.now() - began) / 1000)} s`);
} catch (err) {
  console.error('bench:fairness failed:', err);
  exitCode = 1;
}
process.exit(exitCode);
