import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createDb } from '../src/db/client.ts';
import { startStack } from '../test/support/stack.ts';
import { exchangeKey, type BenchCaller } from './client.ts';
import { benchPaging } from './event-log.ts';
import { Floor, type FloorSample } from './floor/measure.ts';
import { busyProcesses, describeMachine, loadAverage } from './machine.ts';
import { cpuMeter, findTemporalServer, memoryRows, perRun, residentMemory, rssSampler, type Watched } from './proc.ts';
import { offlineModelDelayMs, relayLags, RUN_MESSAGE, runThroughput, timedRun, type RunTiming } from './run-latency.ts';
import { openStreamsMemory } from './sse-streams.ts';
import { medianLegs } from './run-legs.ts';
import {
  distribution,
  fmt,
  median,
  percentile,
  ratio,
  renderTable,
  renderTargets,
  type Row,
  type TargetRow,
} from './stats.ts';
import { createBenchTenant } from './tenant.ts';
import { waitForWorker } from './worker-ready.ts';
import { rate } from './pool.ts';
import { BENCH_STACK_ENV } from './stack-env.ts';
import { BENCH_PROCESSES, prepareBenchProcesses } from './build.ts';
import { capTemporalCpu, giveTemporalItsOwnCore } from './cores.ts';
import { benchMcpCall, MCP_TOOL } from './mcp-call.ts';
import { startEverythingServer } from '../test/support/mcp-servers.ts';
import { terminate } from '../test/support/processes.ts';

/**
 * `npm run bench`: brings up the real stack (as the tests do) and, on the same Temporal dev
 * server, a bare 1-activity workflow with its own worker: Temporal's floor. Measures every
 * target of issue 11 beside that floor, prints a targets table and the distributions behind
 * it, and tears everything down. It asserts nothing. All traffic stays on 127.0.0.1.
 * Knobs (to shrink it): BENCH_RUNS, BENCH_CONCURRENCY, BENCH_ROUNDS (alternating throughput rounds of 2 × c runs), BENCH_RELAY_RUNS,
 * BENCH_STREAMS, BENCH_STREAM_SETTLE_MS, BENCH_HISTORY_EVENTS, BENCH_PAGE_SAMPLES, BENCH_MCP_RUNS. BENCH_PROCESSES=tsx measures the
 * sources under tsx instead of the compiled processes (bench/build.ts).
 */
const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const RUNS = knob('BENCH_RUNS', 20);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '20,50').split(',').map(Number);
const ROUNDS = knob('BENCH_ROUNDS', 2);
const RELAY_RUNS = knob('BENCH_RELAY_RUNS', 100);
const STREAMS = knob('BENCH_STREAMS', 1000);
const STREAM_SETTLE_MS = knob('BENCH_STREAM_SETTLE_MS', 10_000);
const HISTORY_SMALL = 1000;
const HISTORY_LARGE = knob('BENCH_HISTORY_EVENTS', 100_000);
const PAGE_SAMPLES = knob('BENCH_PAGE_SAMPLES', 20);
const MCP_RUNS = knob('BENCH_MCP_RUNS', 20);
const WARM_UP = 3;
const SEQUENTIAL_PAUSE_MS = 150;

// The bench's output is its table: the in-process Temporal runtime (dev server handle, floor worker) logs only warnings.
Runtime.install({ logger: new DefaultLogger('WARN') });
const began = performance.now();
const log = (m: string) => console.error(`[bench ${((performance.now() - began) / 1000).toFixed(1)}s] ${m}`);
const database = process.env.DATABASE_URL
  ? `DATABASE_URL (${new URL(process.env.DATABASE_URL).host})`
  : 'embedded PostgreSQL';
const loadBefore = loadAverage();
const busyBefore = await busyProcesses();

const processes = prepareBenchProcesses(log);
log(`starting the stack on ${database}, api and worker ${processes}`);
const stack = await startStack({
  purpose: 'bench',
  env: BENCH_STACK_ENV,
  processes: BENCH_PROCESSES,
});
const db = createDb(stack.databaseUrl, 4);
const pids: Watched = { api: stack.api.pid!, worker: stack.worker.pid! };
const temporalPid = findTemporalServer(stack.temporalAddress);
if (temporalPid !== undefined) pids['Temporal dev server'] = temporalPid;
const OWN_CORE = process.env.BENCH_TEMPORAL_CORE === '1';
if (OWN_CORE && temporalPid === undefined)
  throw new Error('BENCH_TEMPORAL_CORE=1: the Temporal dev server process was not found');
const TEMPORAL_CPU = process.env.BENCH_TEMPORAL_CPU === undefined ? undefined : Number(process.env.BENCH_TEMPORAL_CPU);
if (TEMPORAL_CPU !== undefined && !OWN_CORE) throw new Error('BENCH_TEMPORAL_CPU needs BENCH_TEMPORAL_CORE=1');
const unpinCores = OWN_CORE
  ? giveTemporalItsOwnCore(temporalPid!, [process.pid, stack.api.pid!, stack.worker.pid!])
  : undefined;
let uncap: (() => void) | undefined;
try {
  uncap = TEMPORAL_CPU === undefined ? undefined : capTemporalCpu(temporalPid!, TEMPORAL_CPU);
} catch (err) {
  unpinCores?.();
  await stack.teardown();
  throw err;
}
const unpin = () => {
  uncap?.();
  unpinCores?.();
};
let floor: Floor | undefined;
let exitCode = 0;
let mcpServer: Awaited<ReturnType<typeof startEverythingServer>> | undefined;
try {
  // The MCP project's everything server on loopback (Streamable HTTP): the MCP row's tool server.
  mcpServer = await startEverythingServer('streamableHttp');
  const tenant = await createBenchTenant(db, mcpServer.url);
  const who: BenchCaller = {
    apiUrl: stack.apiUrl,
    token: await exchangeKey(stack.apiUrl, tenant.ownerKey),
    agentId: tenant.agentId,
  };
  const details: Row[] = [];
  const targets: TargetRow[] = [];
  const [bare] = await Promise.all([
    Floor.start(stack.temporalAddress),
    waitForWorker({ address: stack.temporalAddress }, stack.taskQueue),
  ]);
  floor = bare;
  // Let start-up work (JIT, pools, first polls) settle before the idle reading.
  await new Promise((r) => setTimeout(r, 3000));
  const idle = { api: residentMemory(pids.api!).rss, worker: residentMemory(pids.worker!).rss };
  details.push(...memoryRows('idle after start-up', pids));

  log(`${STREAMS} open SSE streams on the api`);
  const streams = await openStreamsMemory(db, tenant, who, pids.api!, STREAMS, STREAM_SETTLE_MS);
  details.push({
    section: 'streams',
    metric: `${streams.streams} open task streams: api RSS before → with them, 2 s and ${STREAM_SETTLE_MS / 1000} s after the last opened`,
    n: streams.streams,
    note: `${streams.beforeMiB.toFixed(0)} → ${streams.afterMiB.toFixed(0)} → ${streams.settledMiB.toFixed(0)} MiB`,
  });
  details.push({
    section: 'streams',
    metric: 'api RSS per open stream, 2 s after the last opened (garbage of opening them included)',
    n: streams.streams,
    note: `${streams.kbPerStream.toFixed(1)} KB`,
  });
  details.push({
    section: 'streams',
    metric:
      'warm-up: the first 100 streams of the api, opened and closed before the 1,000 (code loaded on first use included): api RSS per stream',
    n: 100,
    note: `${streams.coldKbPerStream.toFixed(1)} KB`,
  });

  // The targets' runs use the offline model's "instant" variant: a zero-latency model, as the
  // floor's activity is. The paced model (15 ms a word, like a real model's stream) is measured
  // beside it: the relay below and the paced rows use it.
  const instant: BenchCaller = { ...who, agentId: tenant.instantAgentId };
  // One at a time, taking turns (floor, instant, paced), so whatever one leaves behind weighs on the others alike,
  // with a pause before each: the dev server hands a workflow task to its worker ~35 ms late when the task
  // queue's previous workflow ended a moment before (measured: 28 → 100 ms for the bare floor in a tight loop,
  // none with 100 ms between runs), and these rows are about one run on an idle service.
  log(`warm-up, then ${RUNS} sequential runs each, taking turns: floor, ours (instant model), ours (paced model)`);
  const floorSeq: FloorSample[] = [];
  const oursSeq: RunTiming[] = [];
  const pacedSeq: RunTiming[] = [];
  const paused = async <T>(run: () => Promise<T>) => {
    await new Promise((r) => setTimeout(r, SEQUENTIAL_PAUSE_MS));
    return run();
  };
  for (let i = 0; i < WARM_UP + RUNS; i++) {
    const turn = [
      await paused(() => bare.once()),
      await paused(() => timedRun(instant)),
      await paused(() => timedRun(who)),
    ] as const;
    if (i < WARM_UP) continue;
    floorSeq.push(turn[0]);
    oursSeq.push(turn[1]);
    pacedSeq.push(turn[2]);
  }
  const modelSleep = offlineModelDelayMs();
  const floorFirst = floorSeq.map((s) => s.firstActivity);
  const floorResult = floorSeq.map((s) => s.result);
  const oursStarted = oursSeq.map((t) => t.runStarted);
  const oursFinished = oursSeq.map((t) => t.runFinished);
  details.push(
    distribution('floor', 'bare workflow: client start → activity started', floorFirst),
    distribution('floor', 'bare 1-activity workflow: client start → result', floorResult),
    distribution(
      'ours',
      'POST /api/run → response headers (instant model)',
      oursSeq.map((t) => t.headers),
    ),
    distribution('ours', 'POST /api/run → RUN_STARTED received (instant model)', oursStarted),
    distribution('ours', 'POST /api/run → RUN_FINISHED received (instant model)', oursFinished),
    distribution(
      'ours',
      'POST /api/run → RUN_FINISHED received (paced model)',
      pacedSeq.map((t) => t.runFinished),
      `includes the model's ${modelSleep} ms of pacing`,
    ),
  );
  const legs = await medianLegs(bare.temporal, floorSeq, oursSeq);
  details.push(
    {
      section: 'legs',
      metric: 'floor: where a run goes, median ms (client clock and workflow history)',
      n: floorSeq.length,
      note: legs.floor,
    },
    {
      section: 'legs',
      metric: 'ours (instant model): the same legs; RUN_FINISHED is stored by the model step (the activity leg)',
      n: oursSeq.length,
      note: legs.ours,
    },
  );
  targets.push(
    {
      metric: 'start → RUN_STARTED at the client (median)',
      ours: `${fmt(median(oursStarted))} ms`,
      floor: `${fmt(median(floorFirst))} ms`,
      ratio: ratio(median(oursStarted) / median(floorFirst)),
      target: '≤ 1.5×',
      met: median(oursStarted) / median(floorFirst) <= 1.5,
    },
    {
      metric: 'whole fast run, zero-latency model (median)',
      ours: `${fmt(median(oursFinished))} ms`,
      floor: `${fmt(median(floorResult))} ms`,
      ratio: ratio(median(oursFinished) / median(floorResult)),
      target: '≤ 1.5×',
      met: median(oursFinished) / median(floorResult) <= 1.5,
    },
  );

  log(`warm-up, then ${MCP_RUNS} runs with one MCP tool call, each followed by the same call with the SDK's client`);
  const mcp = await benchMcpCall(
    { ...who, agentId: tenant.mcpAgentId! },
    bare.temporal,
    mcpServer.url,
    WARM_UP,
    MCP_RUNS,
  );
  const call = `${MCP_TOOL.server}'s ${MCP_TOOL.tool}`;
  details.push(
    distribution('mcp', `run with one MCP tool call (${call}): the call activity, scheduled → completed`, mcp.inRun),
    distribution('mcp', '… of which Temporal hands it to the worker (scheduled → started)', mcp.dispatch),
    distribution('mcp', '… of which the activity on the worker (started → completed)', mcp.activity),
    distribution('mcp', "the same run's listing activity at its start (connect, tools/list)", mcp.listing),
    distribution('mcp', 'the same run: POST /api/run → RUN_FINISHED (instant model, two model steps)', mcp.run),
    distribution('mcp', 'the same call, SDK client on an open session', mcp.sdkWarm),
    distribution('mcp', 'the same call, SDK client on a new session (connect, call, end the session)', mcp.sdkFresh),
  );
  targets.push({
    metric: `one MCP tool call in a run (${call} on loopback) vs the SDK client's call (median)`,
    ours: `${fmt(median(mcp.inRun))} ms`,
    floor: `${fmt(median(mcp.sdkWarm))} ms (SDK)`,
    ratio: ratio(median(mcp.inRun) / median(mcp.sdkWarm)),
    target: '≤ 1.3×',
    met: median(mcp.inRun) / median(mcp.sdkWarm) <= 1.3,
  });

  // Throughput: rounds that alternate floor, ours (instant), ours (paced), 2 × c runs each, so a VM
  // that speeds up or slows down during the phase weighs on all three alike. Rates, CPU and the
  // worker's peak are summed over each one's rounds.
  let workerAt50: number | undefined;
  for (const c of CONCURRENCY) {
    const perRound = 2 * c;
    const total = perRound * ROUNDS;
    log(
      `throughput at ${c} concurrent: ${ROUNDS} rounds of ${perRound} runs each for the floor, ours (instant model), ours (paced model)`,
    );
    const floorTotals = { wallMs: 0, cpu: {} as Record<string, number> };
    const ours = Object.fromEntries(
      (['instant', 'paced'] as const).map((m) => [
        m,
        { wallMs: 0, cpu: {} as Record<string, number>, complete: 0, incomplete: 0, lost: 0, misordered: 0, peak: 0 },
      ]),
    );
    const addCpu = (into: Record<string, number>, used: Record<string, number>) => {
      for (const [name, ms] of Object.entries(used)) into[name] = (into[name] ?? 0) + ms;
    };
    for (let round = 0; round < ROUNDS; round++) {
      const floorCpu = cpuMeter({
        'Temporal dev server': pids['Temporal dev server']!,
        'bench (its worker)': process.pid,
      });
      floorTotals.wallMs += await bare.throughput(perRound, c);
      addCpu(floorTotals.cpu, floorCpu());
      for (const [model, caller] of [
        ['instant', instant],
        ['paced', who],
      ] as const) {
        const peak = rssSampler(pids.worker!);
        const oursCpu = cpuMeter({ ...pids, 'bench (its HTTP client)': process.pid }, { postgres: true });
        const result = await runThroughput(caller, db, perRound, c);
        const sums = ours[model]!;
        addCpu(sums.cpu, oursCpu());
        sums.peak = Math.max(sums.peak, peak());
        sums.wallMs += result.wallMs;
        sums.complete += result.complete;
        sums.incomplete += result.incomplete;
        sums.lost += result.lost;
        sums.misordered += result.misordered;
      }
    }
    const floorRate = rate(total, floorTotals.wallMs);
    details.push({
      section: 'cpu',
      metric: `${c} concurrent, floor: CPU ms per run`,
      n: total,
      note: perRun(floorTotals.cpu, total),
    });
    for (const [model, sums] of Object.entries(ours)) {
      const oursRate = rate(sums.complete, sums.wallMs);
      details.push({
        section: 'cpu',
        metric: `${c} concurrent, ours (${model} model): CPU ms per run (the bench's client on the same cores)`,
        n: total,
        note: perRun(sums.cpu, total),
      });
      details.push({
        section: 'ours',
        metric: `${c} concurrent (${model} model): worker RSS, highest`,
        n: total,
        note: `${sums.peak.toFixed(0)} MiB`,
      });
      if (c === 50) workerAt50 = Math.max(workerAt50 ?? 0, sums.peak);
      if (model === 'instant') {
        // Every process a run costs, ours (api, worker, Temporal, PostgreSQL, the HTTP client) against the floor's.
        const sum = (cpu: Record<string, number>) => Object.values(cpu).reduce((a, b) => a + b, 0) / total;
        const [oursMs, floorMs] = [sum(sums.cpu), sum(floorTotals.cpu)];
        targets.push({
          metric: `CPU per run at ${c} concurrent, instant model, all processes`,
          ours: `${oursMs.toFixed(1)} ms`,
          floor: `${floorMs.toFixed(1)} ms`,
          ratio: ratio(oursMs / floorMs),
          target: '≤ 1.3×',
          met: oursMs / floorMs <= 1.3,
        });
      }
      const ok = sums.incomplete === 0 && sums.lost === 0 && sums.misordered === 0;
      targets.push({
        metric: `throughput at ${c} concurrent (${total} runs), ${model} model`,
        ours: `${oursRate.toFixed(1)} runs/s`,
        floor: `${floorRate.toFixed(1)} runs/s`,
        ratio: ratio(oursRate / floorRate),
        target: '≥ 0.8×, all complete, 0 lost',
        met: oursRate / floorRate >= 0.8 && ok,
      });
      targets.push({
        metric: `… runs complete / events lost / misordered`,
        ours: `${sums.complete}/${total} / ${sums.lost} / ${sums.misordered}`,
        target: `${total}/${total} / 0 / 0`,
        met: ok,
      });
    }
  }

  log(`relay with ${RELAY_RUNS} runs streaming`);
  const relay = await relayLags(who, RELAY_RUNS);
  const sortedLags = [...relay.lags].sort((a, b) => a - b);
  const p50 = percentile(sortedLags, 50);
  const p99 = percentile(sortedLags, 99);
  details.push(
    distribution(
      'ours',
      `event stored → SSE client, ${RELAY_RUNS} runs streaming`,
      relay.lags,
      `p99 ${fmt(p99)} ms; ${relay.replayed} replayed (not counted), ${relay.failed} runs failed`,
    ),
  );
  targets.push(
    { metric: `relay p50, ${RELAY_RUNS} runs streaming`, ours: `${fmt(p50)} ms`, target: '≤ 5 ms', met: p50 <= 5 },
    { metric: `relay p99, ${RELAY_RUNS} runs streaming`, ours: `${fmt(p99)} ms`, target: '≤ 50 ms', met: p99 <= 50 },
    {
      metric: `${streams.streams} open SSE streams, api RSS per stream (settled: ${STREAM_SETTLE_MS / 1000} s)`,
      ours: `${streams.settledKbPerStream.toFixed(1)} KB`,
      target: '≤ 25 KB',
      met: streams.settledKbPerStream <= 25,
    },
  );

  log(`history pages at ${HISTORY_SMALL} and ${HISTORY_LARGE} events`);
  const pages = await benchPaging(db, tenant, who, HISTORY_SMALL, HISTORY_LARGE, PAGE_SAMPLES);
  for (const [label, samples] of Object.entries(pages))
    details.push(
      distribution(
        'history',
        `GET /api/runs/{id}/events?limit=100, ${label.replace('@', ' page of ')} events`,
        samples,
      ),
    );
  for (const which of ['first', 'deep'] as const) {
    const large = median(pages[`${which}@${HISTORY_LARGE}`]!);
    const small = median(pages[`${which}@${HISTORY_SMALL}`]!);
    targets.push({
      metric: `history ${which} page, ${HISTORY_LARGE.toLocaleString('en-US')} vs ${HISTORY_SMALL.toLocaleString('en-US')} events (median)`,
      ours: `${fmt(large)} ms`,
      floor: `${fmt(small)} ms (1k)`,
      ratio: ratio(large / small),
      target: '≤ 1.2×',
      met: large / small <= 1.2,
    });
  }

  targets.push(
    { metric: 'worker RSS, idle', ours: `${idle.worker.toFixed(0)} MiB`, target: '≤ 300 MiB', met: idle.worker <= 300 },
    {
      metric: 'worker RSS, 50 concurrent runs (highest)',
      ours: workerAt50 === undefined ? 'not measured' : `${workerAt50.toFixed(0)} MiB`,
      target: '≤ 400 MiB',
      met: workerAt50 !== undefined && workerAt50 <= 400,
    },
    { metric: 'api RSS, idle', ours: `${idle.api.toFixed(0)} MiB`, target: '≤ 150 MiB', met: idle.api <= 150 },
  );
  details.push(...memoryRows('at the end', pids));
  const busyAfter = await busyProcesses(Object.values(pids));

  console.log(`\nAgent Run Service benchmark (${new Date().toISOString()})`);
  const placement = OWN_CORE
    ? `; the Temporal dev server alone on CPU 0${TEMPORAL_CPU === undefined ? '' : `, capped at ${Math.round(TEMPORAL_CPU * 100)}% of it`}`
    : '';
  console.log(`machine: ${describeMachine()}; load average before ${loadBefore}, after ${loadAverage()}${placement}`);
  console.log(
    `other processes using > 5% of a core: just before the bench: ${busyBefore.join('; ') || 'none'}; just after: ${busyAfter.join('; ') || 'none'}`,
  );
  console.log(
    `database: ${database}; Temporal dev server (TestWorkflowEnvironment.createLocal); api + worker as child processes, ${processes}; floor: a bare 1-activity workflow, in-process Worker, same server`,
  );
  console.log(
    `model: offline, message "${RUN_MESSAGE}": "instant" (a zero-latency model) for the targets' runs; paced (${modelSleep} ms a run, 15 ms a word, like a real model's stream) for the relay and the paced rows\n`,
  );
  console.log(renderTargets(targets));
  console.log('');
  console.log(renderTable(details));
  console.log(
    `\ntotal bench time ${((performance.now() - began) / 1000).toFixed(0)} s (including stack start-up and teardown below)`,
  );
} catch (err) {
  console.error('bench failed:', err);
  exitCode = 1;
} finally {
  unpin();
  await floor?.stop().catch((err: unknown) => log(`floor worker stop failed: ${String(err)}`));
  if (mcpServer) await terminate(mcpServer.child);
  await db.$disconnect().catch(() => {});
  await stack.teardown().then(
    () => log('stack torn down, database dropped'),
    (err: unknown) => log(`teardown failed: ${String(err)}`),
  );
}
// Keep-alive sockets and pools would keep the process alive; everything is closed above.
process.exit(exitCode);
