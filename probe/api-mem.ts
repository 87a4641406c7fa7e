// Ad-hoc probe (not committed): api memory idle and with N open task streams, compiled processes.
import { createDb } from '../src/db/client.ts';
import { startStack } from '../test/support/stack.ts';
import { exchangeKey, request, type BenchCaller } from '../bench/client.ts';
import { createRun } from '../bench/event-log.ts';
import { residentMemory } from '../bench/proc.ts';
import { createBenchTenant } from '../bench/tenant.ts';
import { BENCH_STACK_ENV } from '../bench/stack-env.ts';
import { BENCH_PROCESSES, prepareBenchProcesses } from '../bench/build.ts';

const N = Number(process.env.PROBE_STREAMS ?? 1000);
prepareBenchProcesses(console.error);
const stack = await startStack({ purpose: 'bench', env: { ...BENCH_STACK_ENV, ...JSON.parse(process.env.PROBE_ENV ?? '{}') }, processes: BENCH_PROCESSES });
const db = createDb(stack.databaseUrl, 4);
const pid = stack.api.pid!;
async function metrics(label: string) {
  const text = await (await fetch(`${stack.apiUrl}/metrics`)).text();
  const pick = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 1048576;
  const spaces = [...text.matchAll(/^nodejs_heap_space_size_used_bytes\{space="(\w+)"\} (\S+)/gm)].map(([, s, v]) => `${s}=${(Number(v) / 1048576).toFixed(1)}`).join(' ');
  const { rss } = residentMemory(pid);
  console.log(`${label}: rss ${rss.toFixed(1)} heapUsed ${pick('nodejs_heap_size_used_bytes').toFixed(1)} heapTotal ${pick('nodejs_heap_size_total_bytes').toFixed(1)} external ${pick('nodejs_external_memory_bytes').toFixed(1)} | ${spaces}`);
  return rss;
}
try {
  const tenant = await createBenchTenant(db);
  const who: BenchCaller = { apiUrl: stack.apiUrl, token: await exchangeKey(stack.apiUrl, tenant.ownerKey), agentId: tenant.agentId };
  await new Promise((r) => setTimeout(r, 3000));
  await metrics('idle');
  const taskIds: string[] = [];
  for (let i = 0; i < Math.ceil(N / 10); i++) taskIds.push((await createRun(db, tenant)).taskId);
  await new Promise((r) => setTimeout(r, 1000));
  const before = await metrics('before streams');
  if (process.env.PROBE_SNAP) { process.kill(pid, 'SIGUSR2'); await new Promise((r) => setTimeout(r, 8000)); }
  const abort = new AbortController();
  const open: Response[] = [];
  for (let i = 0; i < N; i += 100) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, N - i) }, (_, j) => request(who, 'GET', `/api/tasks/${taskIds[Math.floor((i + j) / 10)]}/stream`, undefined, abort.signal)));
    open.push(...batch);
  }
  await new Promise((r) => setTimeout(r, 2000));
  const after = await metrics(`with ${open.length} streams`);
  console.log(`per stream ${(((after - before) * 1024) / open.length).toFixed(1)} KB`);
  if (process.env.PROBE_SNAP) { process.kill(pid, 'SIGUSR2'); await new Promise((r) => setTimeout(r, 15000)); }
  abort.abort();
  await Promise.all(open.map((res) => res.body?.cancel().catch(() => {})));
} finally {
  await db.$disconnect();
  await stack.teardown();
  process.exit(0);
}
