import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { exchange } from '../support/http.ts';
import { closeTestDb, createTenant, testDb } from '../support/tenant.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';
import { eventually } from '../support/eventually.ts';

/**
 * Outages of our own infrastructure while a run streams: a private api + worker pair
 * reaches PostgreSQL and Temporal through TCP proxies that the test takes away for
 * longer than the old attempt limits allowed (they failed a run after ~6 s of errors).
 * Short here to keep the suite fast; `npm run chaos` cuts for 60 s.
 */
const OUTAGE_MS = Number(process.env.OUTAGE_TEST_MS ?? 10_000);
const KEY_ENV = 'OUTAGE_TEST_MODEL_KEY';
let pgProxy: TcpProxy;
let temporalProxy: TcpProxy;
let api: ApiProcess;
let worker: WorkerProcess;
let fake: FakeOpenAi;
let dataDir: string;
let who: { token: string; agentId: string };

beforeAll(async () => {
  const db = new URL(inject('databaseUrl'));
  const [temporalHost, temporalPort] = inject('temporalAddress').split(':') as [string, string];
  pgProxy = await startTcpProxy(db.hostname, Number(db.port || 5432));
  temporalProxy = await startTcpProxy(temporalHost, Number(temporalPort));
  db.port = String(pgProxy.port);
  const queue = `outage-${randomBytes(3).toString('hex')}`;
  dataDir = mkdtempSync(path.join(tmpdir(), 'ars-outage-'));
  const env = {
    DATABASE_URL: db.toString(),
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalProxy.port}`,
    TEMPORAL_TASK_QUEUE: queue,
  };
  [api, worker] = await Promise.all([
    startApiProcess(env),
    startWorkerProcess(queue, { ...env, [KEY_ENV]: 'sk-test', DATA_DIR: dataDir }),
  ]);
  fake = await startFakeOpenAi({
    chunks: Array.from({ length: 30 }, (_, i) => `word${i} `),
    delayMs: 150,
    usage: { prompt_tokens: 10, completion_tokens: 30 },
  });
  const tenant = await createTenant({
    provider: 'openai-compatible',
    model: 'fake-model',
    base_url: fake.baseUrl,
    api_key_env: KEY_ENV,
  });
  who = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
}, 120_000);

afterAll(async () => {
  await Promise.all([worker?.stop(), api?.close()]);
  await Promise.all([pgProxy?.close(), temporalProxy?.close(), fake?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
  await closeTestDb();
});

const headers = () => ({
  Authorization: `Bearer ${who.token}`,
  'X-Agent-Id': who.agentId,
  'Content-Type': 'application/json',
});

async function startRun(content: string): Promise<string> {
  const res = await fetch(`${api.url}/api/run/async`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({ messages: [{ role: 'user', content }] }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { run_id: string }).run_id;
}

async function expectCompletedOnce(runId: string): Promise<void> {
  await eventually(
    'the run to complete',
    async () => expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('completed'),
    {
      timeout: 90_000,
      interval: 500,
    },
  );
  const events = await testDb().runEvent.findMany({ where: { runId }, orderBy: { seq: 'asc' } });
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(events.filter((e) => e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR').map((e) => e.type)).toEqual([
    'RUN_FINISHED',
  ]);
  expect(events.at(-1)!.type).toBe('RUN_FINISHED');
  const starts = events.filter((e) => e.type === 'TEXT_MESSAGE_START').length;
  expect(events.filter((e) => e.type === 'TEXT_MESSAGE_END').length).toBe(starts);
  expect(events.filter((e) => e.name === 'USAGE')).toHaveLength(1);
}

async function waitForText(runId: string): Promise<void> {
  await eventually(
    'the run to stream',
    async () =>
      expect(await testDb().runEvent.count({ where: { runId, type: 'TEXT_MESSAGE_CONTENT' } })).toBeGreaterThan(0),
    {
      timeout: 30_000,
      interval: 100,
    },
  );
}

describe('a PostgreSQL outage while a run streams', () => {
  it('fails no run: the model step retries until the database is back; the api answers 503 with Retry-After meanwhile', async () => {
    const runId = await startRun('keep talking through the outage');
    await waitForText(runId);
    await pgProxy.cut();
    const during = await fetch(`${api.url}/api/tasks`, { headers: headers() });
    expect(during.status).toBe(503);
    expect(Number(during.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await during.json()).toEqual({ detail: expect.stringMatching(/briefly unavailable/) });
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await pgProxy.restore();
    await expectCompletedOnce(runId);
    const after = await fetch(`${api.url}/api/tasks`, { headers: headers() });
    expect(after.status).toBe(200);
  }, 150_000);
});

describe('a Temporal outage while a run streams', () => {
  it('fails no run: worker and api reconnect and the run completes exactly once', async () => {
    const runId = await startRun('keep talking through the engine outage');
    await waitForText(runId);
    await temporalProxy.cut();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await temporalProxy.restore();
    await expectCompletedOnce(runId);
  }, 150_000);
});
