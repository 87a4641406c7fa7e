import { parseArgs } from 'node:util';
import { createBenchTenant } from '../bench/tenant.ts';
import { exchangeKey } from '../bench/client.ts';
import { createDb } from '../src/db/client.ts';
import { ChaosStack, sleep } from '../test/support/chaos-stack.ts';
import { checkRuns } from './chaos/checks.ts';
import { followRun, type Caller, type ClientRun } from './chaos/client.ts';

/**
 * `npm run chaos -- --clients N --rounds R`: the real stack as separate processes
 * (private PostgreSQL, Temporal dev server, api, worker) while N clients stream
 * runs back to back, resuming with Last-Event-ID (or retrying the POST with its
 * Idempotency-Key before they learned the task). Each round kills -9 the worker,
 * the api and Temporal, and restarts PostgreSQL, one at a time with runs in
 * flight. Then every run is checked (scripts/chaos/checks.ts) and one line
 * `faults=… runs=… lost=… duplicated=… reordered=…` is printed; the exit code is 1
 * when anything was lost, duplicated, reordered, unfinished or orphaned.
 */
const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '13' },
    words: { type: 'string', default: '120' },
  },
});
const clients = Number(args.clients);
const rounds = Number(args.rounds);
const began = performance.now();
const log = (m: string) => console.error(`[chaos ${((performance.now() - began) / 1000).toFixed(0)}s] ${m}`);

// The offline model streams the user's message back, 15 ms a word: a run streams for ~2 s.
const message = Array.from({ length: Number(args.words) }, (_, i) => `word${i}`).join(' ');

const faults: [string, (s: ChaosStack) => Promise<void>][] = [
  ['kill -9 worker', (s) => s.killService('worker')],
  ['kill -9 api', (s) => s.killService('api')],
  ['kill -9 Temporal', (s) => s.killTemporal()],
  ['restart PostgreSQL', (s) => s.restartPostgres()],
];

log(`starting the stack (${clients} clients, ${rounds} rounds of ${faults.length} faults)`);
const stack = await ChaosStack.start({
  log,
  env: {
    // One user starts every run: the per-user limits would refuse them.
    RATE_LIMIT_RUNS_PER_MINUTE: '100000',
    RATE_LIMIT_TASKS_PER_MINUTE: '100000',
    RATE_LIMIT_EVENTS_PER_MINUTE: '100000',
    SSE_MAX_STREAMS_PER_USER: '1000',
    HEARTBEAT_INTERVAL_MS: '3000',
  },
});
let exitCode = 1;
// Ctrl+C: stop the stack's processes and PostgreSQL rather than leave them behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stack.teardown().finally(() => process.exit(130)));
}
try {
  const db = createDb(stack.databaseUrl, 2);
  const tenant = await createBenchTenant(db);
  await db.$disconnect();
  const who: Caller = {
    apiUrl: stack.apiUrl,
    token: await exchangeKey(stack.apiUrl, tenant.ownerKey),
    agentId: tenant.agentId,
  };

  const runs: ClientRun[] = [];
  let faulting = true;
  // Generous: a run hit by a fault waits for activity timeouts and restarts on two shared cores.
  const runDeadline = () => Date.now() + 10 * 60_000;
  const streaming = Array.from({ length: clients }, async () => {
    while (faulting) runs.push(await followRun(who, message, runDeadline()));
  });

  let injected = 0;
  for (let round = 1; round <= rounds; round++) {
    for (const [name, inject] of faults) {
      await sleep(1000 + Math.random() * 3000); // let runs get going, at a random point of their stream
      const t = performance.now();
      await inject(stack);
      injected++;
      log(
        `round ${round}: ${name}, back in ${((performance.now() - t) / 1000).toFixed(1)} s (${runs.length} runs done)`,
      );
    }
  }
  faulting = false;
  log('faults done; waiting for the runs in flight');
  await Promise.all(streaming);

  log(`checking ${runs.length} runs`);
  const v = await checkRuns(
    who,
    { databaseUrl: stack.databaseUrl, temporalAddress: stack.temporalAddress },
    tenant.orgId,
    runs,
  );
  const sum = (f: (r: ClientRun) => number) => runs.reduce((n, r) => n + f(r), 0);
  console.log(`faults=${injected} runs=${v.runs} lost=${v.lost} duplicated=${v.duplicated} reordered=${v.reordered}`);
  console.log(
    `not_completed=${v.notCompleted} history_mismatch=${v.historyMismatch} text_mismatch=${v.textMismatch} orphans=${v.orphans} ` +
      `events=${sum((r) => r.received.length)} resumes=${sum((r) => r.resumes)} post_retries=${sum((r) => r.postRetries)} ` +
      `foreign_frames=${sum((r) => r.foreignFrames)} abandoned_messages=${v.abandonedMessages} clients=${clients} ` +
      `seconds=${((performance.now() - began) / 1000).toFixed(0)}`,
  );
  for (const p of v.problems.slice(0, 40)) console.log(`  ${p}`);
  const bad = v.lost + v.duplicated + v.reordered + v.notCompleted + v.historyMismatch + v.textMismatch + v.orphans;
  exitCode = bad === 0 && v.runs > 0 ? 0 : 1;
} catch (err) {
  console.error('chaos failed:', err);
} finally {
  await stack.teardown();
}
process.exit(exitCode);
