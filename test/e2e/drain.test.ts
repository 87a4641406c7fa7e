import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { apiUrl, exchange, readSse, type SseFrame } from '../support/http.ts';
import { temporalClient } from '../support/runs.ts';
import { closeTestDb, createTenant, testDb } from '../support/tenant.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';
import { eventually } from '../support/eventually.ts';

/**
 * SIGTERM, as a deploy or a scale-down sends it. A private api and worker pair on their own
 * task queue, a model slow enough (80 chunks, 100 ms apart) that a run is mid-stream when the
 * signal comes. The api drains: its streams are told to reconnect and resume on another api by
 * Last-Event-ID; a request in flight finishes; later ones are refused. The worker hands its
 * running activity back to Temporal, which retries it on the worker that is left.
 */
const KEY_ENV = 'DRAIN_TEST_MODEL_KEY';
let queue: string;
let dataDir: string;
let fake: FakeOpenAi;
let api: ApiProcess;
let workers: WorkerProcess[];
let who: { token: string; agentId: string };

const workerEnv = () => ({ [KEY_ENV]: 'sk-test', DATA_DIR: dataDir, SHUTDOWN_GRACE_SECONDS: '1' });

beforeAll(async () => {
  queue = `drain-${randomBytes(3).toString('hex')}`;
  dataDir = mkdtempSync(path.join(tmpdir(), 'ars-drain-'));
  let first: WorkerProcess, second: WorkerProcess;
  [api, first, second, fake] = await Promise.all([
    startApiProcess({ TEMPORAL_TASK_QUEUE: queue, SHUTDOWN_GRACE_SECONDS: '10' }),
    startWorkerProcess(queue, workerEnv()),
    startWorkerProcess(queue, workerEnv()),
    startFakeOpenAi({
      chunks: Array.from({ length: 80 }, (_, i) => `word${i} `),
      delayMs: 100,
      usage: { prompt_tokens: 10, completion_tokens: 80 },
    }),
  ]);
  workers = [first, second];
  const tenant = await createTenant({
    provider: 'openai-compatible',
    model: 'fake-model',
    base_url: fake.baseUrl,
    api_key_env: KEY_ENV,
  });
  who = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
}, 120_000);

afterAll(async () => {
  await Promise.all([api?.close(), ...(workers ?? []).map((w) => w.stop())]);
  await fake?.close();
  rmSync(dataDir, { recursive: true, force: true });
  await closeTestDb();
});

const headers = () => ({
  Authorization: `Bearer ${who.token}`,
  'X-Agent-Id': who.agentId,
  'Content-Type': 'application/json',
});
const body = (content: string) => JSON.stringify({ messages: [{ role: 'user', content }] });

async function storedEvents(runId: string) {
  return testDb().runEvent.findMany({ where: { runId }, orderBy: { seq: 'asc' } });
}

async function expectCompletedOnce(runId: string): Promise<void> {
  await eventually(
    'the run to complete',
    async () => expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('completed'),
    {
      timeout: 60_000,
      interval: 250,
    },
  );
  const events = await storedEvents(runId);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(events.filter((e) => e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR').map((e) => e.type)).toEqual([
    'RUN_FINISHED',
  ]);
  expect(events.filter((e) => e.type === 'TEXT_MESSAGE_END').length).toBe(
    events.filter((e) => e.type === 'TEXT_MESSAGE_START').length,
  );
}

/** Sends a request's headers and half its body now; `finish()` sends the rest and resolves with the status. */
function startSlowRequest(url: string, content: string): { finish(): Promise<number> } {
  const payload = Buffer.from(body(content));
  let slow: ReturnType<typeof request> | undefined;
  const status = new Promise<number>((resolve, reject) => {
    const req = request(
      `${url}/api/run/async`,
      { method: 'POST', headers: { ...headers(), 'Content-Length': String(payload.length) } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.write(payload.subarray(0, 10));
    slow = req;
  });
  return {
    finish() {
      slow!.end(payload.subarray(10));
      return status;
    },
  };
}

/** The worker process running the run's model step now, from the workflow's pending activities. */
async function modelStepWorker(runId: string): Promise<WorkerProcess> {
  const { raw } = await (await temporalClient()).workflow.getHandle(runId).describe();
  const identities = (raw.pendingActivities ?? []).map((a) => a.lastWorkerIdentity ?? '');
  const holder = workers.find((w) => identities.some((id) => id.startsWith(`${w.pid}@`)));
  if (!holder) throw new Error(`no test worker runs an activity of ${runId} (pending on: ${identities.join(', ')})`);
  return holder;
}

describe('SIGTERM to a worker', () => {
  it('hands the running model call back to Temporal: it is retried on the other worker and the run completes once', async () => {
    const res = await fetch(`${api.url}/api/run/async`, {
      method: 'POST',
      headers: headers(),
      body: body('talk through the worker shutdown'),
    });
    expect(res.status).toBe(202);
    const { run_id: runId } = (await res.json()) as { run_id: string };
    await eventually(
      'the run to stream',
      async () =>
        expect(await testDb().runEvent.count({ where: { runId, type: 'TEXT_MESSAGE_CONTENT' } })).toBeGreaterThan(2),
      {
        timeout: 30_000,
        interval: 100,
      },
    );

    // The worker that holds the model call (8 s in all, still streaming) is told to stop.
    const holder = await modelStepWorker(runId);
    expect(await testDb().runEvent.count({ where: { runId, type: 'TEXT_MESSAGE_END' } })).toBe(0);
    expect(await holder.terminate()).toBe(0);
    expect(holder.stdout.some((line) => line.includes('"worker stopped"'))).toBe(true);

    await expectCompletedOnce(runId);
    // The first attempt was cut short by the shutdown; the retry on the second worker said so.
    const retried = (await storedEvents(runId)).filter(
      (e) =>
        e.type === 'CUSTOM' &&
        e.name === 'SYSTEM_STATUS' &&
        (e.payload as { data?: { status?: string } }).data?.status === 'retrying',
    );
    expect(retried.length).toBeGreaterThan(0);
    // The answer is the retry's whole text, not what the cut stream had sent (which was never the answer).
    const events = await storedEvents(runId);
    const lastMessage = events.filter((e) => e.type === 'TEXT_MESSAGE_START').at(-1)!.payload as { message_id: string };
    const text = events
      .filter(
        (e) =>
          e.type === 'TEXT_MESSAGE_CONTENT' &&
          (e.payload as { message_id: string }).message_id === lastMessage.message_id,
      )
      .map((e) => (e.payload as { delta: string }).delta)
      .join('');
    expect(text).toBe(Array.from({ length: 80 }, (_, i) => `word${i} `).join(''));
  }, 120_000);
});

describe('SIGTERM to an api', () => {
  it('tells its open stream to reconnect, finishes the request in flight, refuses new ones, and exits 0', async () => {
    const res = await fetch(`${api.url}/api/run`, {
      method: 'POST',
      headers: headers(),
      body: body('stream through the api shutdown'),
    });
    expect(res.status).toBe(200);
    const runId = res.headers.get('x-run-id')!;
    const taskId = res.headers.get('x-task-id')!;
    let slow: { finish(): Promise<number> } | undefined;
    let exit: Promise<number | null> | undefined;
    let contents = 0;
    const firstPart = await readSse(res, (frame) => {
      if (frame.data.type === 'TEXT_MESSAGE_CONTENT' && ++contents === 3) {
        slow = startSlowRequest(api.url, 'sent while the api drains');
        // The slow request's headers reach the api before the signal does.
        exit = new Promise((r) => setTimeout(r, 300)).then(() => api.terminate());
      }
    });
    expect(exit).toBeDefined();

    // The stream ended without a terminal event, on a reconnect notice naming the last id it sent.
    const last = firstPart.at(-1)!;
    expect(last.id).toBeUndefined();
    expect(last.data).toMatchObject({
      type: 'CUSTOM',
      name: 'SYSTEM_STATUS',
      data: { status: 'reconnect', run_id: runId },
    });
    const sent = firstPart.filter((f) => f.id !== undefined);
    expect((last.data.data as { last_event_id: string }).last_event_id).toBe(sent.at(-1)!.id);
    expect(sent.some((f) => f.data.type === 'RUN_FINISHED' || f.data.type === 'RUN_ERROR')).toBe(false);

    // New requests are refused while it drains (503, or no connection once it stopped listening).
    const refused = await fetch(`${api.url}/api/tasks`, { headers: headers() }).then(
      (r) => r.status,
      () => 'no connection',
    );
    expect([503, 'no connection']).toContain(refused);
    // The request that was in flight when the drain began is served.
    expect(await slow!.finish()).toBe(202);
    expect(await exit).toBe(0);
    expect(api.logs.some((l) => l.msg === 'api drained' && l.drained === true)).toBe(true);

    // The client resumes on another api from where it was: every event once, in order.
    const resumed = await fetch(`${apiUrl()}/api/tasks/${taskId}/stream`, {
      headers: { ...headers(), 'Last-Event-ID': sent.at(-1)!.id! },
    });
    expect(resumed.status).toBe(200);
    const rest = (await readSse(resumed)).filter((f: SseFrame) => f.id !== undefined);
    await expectCompletedOnce(runId);
    const stored = await storedEvents(runId);
    expect([...sent, ...rest].map((f) => f.data.type)).toEqual(stored.map((e) => e.type));
    expect(rest.at(-1)!.data.type).toBe('RUN_FINISHED');
  }, 120_000);
});
