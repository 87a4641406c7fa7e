import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { exchange, readSse, userMessage, withoutHeartbeats, type SseFrame } from '../support/http.ts';
import { expectReplays } from '../support/runs.ts';
import { closeTestDb, createTenant, testDb } from '../support/tenant.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

/**
 * Scale-out on one machine: two api and two worker processes (beside the global stack's,
 * on their own task queue), each worker its own sandbox host (own DATA_DIR). A short
 * sandbox lease makes a killed host's sandboxes move within seconds.
 */
const LEASE_SECONDS = 3;
const queue = `scale-${randomBytes(3).toString('hex')}`;
let apis: ApiProcess[] = [];
let workers: (WorkerProcess & { hostId: string; dataDir: string })[] = [];
let who: { token: string; agentId: string };
let connection: Connection;

beforeAll(async () => {
  const env = { TEMPORAL_TASK_QUEUE: queue, RATE_LIMIT_RUNS_PER_MINUTE: '1000' };
  const startWorker = async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'ars-scale-'));
    const proc = await startWorkerProcess(queue, {
      ...env,
      DATA_DIR: dataDir,
      SANDBOX_LEASE_SECONDS: String(LEASE_SECONDS),
      SANDBOX_DISK_IMAGES: 'false',
    });
    const running = JSON.parse(proc.stdout.find((l) => l.includes('"worker running"'))!) as { sandboxHost: string };
    return Object.assign(proc, { hostId: running.sandboxHost, dataDir });
  };
  [apis, workers] = await Promise.all([
    Promise.all([startApiProcess(env), startApiProcess(env)]),
    Promise.all([startWorker(), startWorker()]),
  ]);
  const tenant = await createTenant({ sandbox: { run_command_approval: false } });
  who = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
  connection = await Connection.connect({ address: inject('temporalAddress') });
}, 120_000);

afterAll(async () => {
  await Promise.all([...workers.map((w) => w.stop()), ...apis.map((a) => a.close())]);
  for (const w of workers) rmSync(w.dataDir, { recursive: true, force: true });
  await connection?.close();
  await closeTestDb();
});

const headers = (extra: Record<string, string> = {}) => ({
  Authorization: `Bearer ${who.token}`,
  'X-Agent-Id': who.agentId,
  'Content-Type': 'application/json',
  ...extra,
});

async function startRun(api: ApiProcess, content: string): Promise<{ runId: string; taskId: string }> {
  const res = await fetch(`${api.url}/api/run/async`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify(userMessage(content)),
  });
  expect(res.status, await res.clone().text()).toBe(202);
  const body = (await res.json()) as { run_id: string; task_id: string };
  return { runId: body.run_id, taskId: body.task_id };
}

/** The run's whole stream through `api`, after its workflow has closed (the workspace snapshot is taken after RUN_FINISHED). */
async function finishedStream(api: ApiProcess, run: { runId: string; taskId: string }): Promise<SseFrame[]> {
  const res = await fetch(`${api.url}/api/tasks/${run.taskId}/stream`, { headers: headers() });
  expect(res.status).toBe(200);
  const frames = withoutHeartbeats(await readSse(res));
  await new Client({ connection }).workflow.getHandle(run.runId).result();
  return frames;
}

const sandboxStatuses = (frames: SseFrame[]) =>
  frames
    .filter((f) => f.data.type === 'CUSTOM' && f.data.name === 'SYSTEM_STATUS')
    .map((f) => (f.data.data as { status: string }).status)
    .filter((s) => s.startsWith('sandbox_'));
const toolResults = (frames: SseFrame[]) =>
  frames.filter((f) => f.data.type === 'TOOL_CALL_RESULT').map((f) => String(f.data.content));

/** Who ran each activity of the run (worker identity, `pid@host`), and on which task queue it was scheduled. */
async function activityWorkers(runId: string): Promise<{ type: string; queue: string; identity: string }[]> {
  const history = await new Client({ connection }).workflow.getHandle(runId).fetchHistory();
  const scheduled = new Map<number, { type: string; queue: string }>();
  const ran: { type: string; queue: string; identity: string }[] = [];
  for (const e of history.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(Number(e.eventId), { type: s.activityType?.name ?? '', queue: s.taskQueue?.name ?? '' });
    const started = e.activityTaskStartedEventAttributes;
    if (started) ran.push({ ...scheduled.get(Number(started.scheduledEventId))!, identity: started.identity ?? '' });
  }
  return ran;
}

describe('two apis and two workers', () => {
  it('a client starts a run on one api and resumes its stream with Last-Event-ID on the other', async () => {
    const abort = new AbortController();
    const body = JSON.stringify(
      userMessage('stream me across two apis, please, word by word, slowly enough to be cut'),
    );
    const res = await fetch(`${apis[0]!.url}/api/run`, {
      method: 'POST',
      headers: headers(),
      body,
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const first: SseFrame[] = [];
    // Read until the first token, then drop the connection, as a client whose api went away.
    await readSse(res, (f) => {
      if (f.data.type !== 'HEARTBEAT') first.push(f);
      if (f.data.type === 'TEXT_MESSAGE_CONTENT') abort.abort();
    }).catch(() => undefined);
    expect(first.at(-1)!.data.type).toBe('TEXT_MESSAGE_CONTENT');
    const taskId = String(first.find((f) => f.data.type === 'RUN_STARTED')!.data.thread_id);
    const rest = await fetch(`${apis[1]!.url}/api/tasks/${taskId}/stream`, {
      headers: headers({ 'Last-Event-ID': first.at(-1)!.id! }),
    });
    expect(rest.status).toBe(200);
    const resumed = withoutHeartbeats(await readSse(rest));
    expect(resumed.some((f) => f.data.type === 'TEXT_MESSAGE_CONTENT')).toBe(true);
    const frames = [...first, ...resumed];
    expect(frames.at(-1)!.data.type).toBe('RUN_FINISHED');
    const runId = String(first[0]!.data.run_id);
    const stored = await testDb().runEvent.findMany({
      where: { runId },
      orderBy: { seq: 'asc' },
      select: { seq: true },
    });
    // Every stored event exactly once, in order, across the two connections.
    expect(frames.map((f) => f.id)).toEqual(stored.map((e) => `${runId}:${e.seq}`));
  });

  it('runs started through both apis complete, and both workers execute their activities', async () => {
    const runs = await Promise.all(Array.from({ length: 12 }, (_, i) => startRun(apis[i % 2]!, `spread run ${i}`)));
    const client = new Client({ connection });
    await Promise.all(runs.map((r) => client.workflow.getHandle(r.runId).result()));
    const statuses = await testDb().run.findMany({
      where: { id: { in: runs.map((r) => r.runId) } },
      select: { status: true },
    });
    expect(statuses.map((s) => s.status)).toEqual(runs.map(() => 'completed'));
    const identities = new Set(
      (await Promise.all(runs.map((r) => activityWorkers(r.runId)))).flat().map((a) => a.identity),
    );
    expect(identities.size).toBe(2);
  });

  it('a sandbox keeps its files across calls and runs while both workers poll: every call goes to the host holding it', async () => {
    const first = await finishedStream(
      apis[0]!,
      await startRun(
        apis[0]!,
        '/tool write_file {"path":"notes.txt","content":"one\\n"}\n/tool run_command {"command":"echo two >> notes.txt"}',
      ),
    );
    expect(sandboxStatuses(first)).toEqual(['sandbox_started']);
    const runs = [];
    for (let i = 0; i < 3; i++) {
      const run = await startRun(
        apis[i % 2]!,
        `/tool run_command {"command":"echo more${i} >> notes.txt && wc -l < notes.txt"}\n/tool read_file {"path":"notes.txt"}`,
      );
      const frames = await finishedStream(apis[(i + 1) % 2]!, run);
      expect(sandboxStatuses(frames)).toEqual([]);
      expect(toolResults(frames)[0]).toContain(`"stdout":"${i + 3}\\n"`);
      runs.push(run);
    }
    const lease = await testDb().sandboxLease.findFirstOrThrow({ where: { agentId: who.agentId } });
    const holder = workers.find((w) => w.hostId === lease.hostId)!;
    const sandboxCalls = (await Promise.all(runs.map((r) => activityWorkers(r.runId))))
      .flat()
      .filter((a) => a.type === 'runTool' || a.type === 'snapshotSandbox');
    expect(new Set(sandboxCalls.map((a) => a.queue))).toEqual(new Set([lease.taskQueue]));
    expect(new Set(sandboxCalls.map((a) => a.identity.split('@')[0]))).toEqual(new Set([String(holder.pid)]));
    await expectReplays(runs[0]!.runId, 'sandbox-routed');
  });

  it('killing the worker that holds the sandbox: the next run restores it from the snapshot on the other worker and completes', async () => {
    const lease = await testDb().sandboxLease.findFirstOrThrow({ where: { agentId: who.agentId } });
    const holder = workers.find((w) => w.hostId === lease.hostId)!;
    const survivor = workers.find((w) => w !== holder)!;
    await holder.crash();
    const run = await startRun(apis[0]!, '/tool run_command {"command":"cat notes.txt"}');
    const frames = await finishedStream(apis[1]!, run);
    expect(frames.at(-1)!.data.type).toBe('RUN_FINISHED');
    expect(sandboxStatuses(frames)).toEqual(['sandbox_restored']);
    expect(toolResults(frames)[0]).toContain('one\\ntwo\\nmore0\\nmore1\\nmore2\\n');
    const moved = await testDb().sandboxLease.findFirstOrThrow({ where: { agentId: who.agentId } });
    expect(moved.hostId).toBe(survivor.hostId);
    await expectReplays(run.runId, 'sandbox-host-died');
  });
});
