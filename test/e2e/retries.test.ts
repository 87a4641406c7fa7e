import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../src/processes/lifecycle.ts';
import { unmountDisksBelow } from '../../src/sandbox/workspace-disk.ts';
import { eventually } from '../support/eventually.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { exchange, readSse, withoutHeartbeats, type SseFrame } from '../support/http.ts';
import { expectOneTerminal, temporalClient } from '../support/runs.ts';
import { closeTestDb, createTenant, testDb } from '../support/tenant.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

/**
 * Retries after a worker is killed mid-call, on a private api + worker pair, so the
 * shared stack's worker keeps running other tests.
 */
const KEY_ENV = 'RETRY_TEST_MODEL_KEY';
let queue: string;
let api: ApiProcess;
let worker: WorkerProcess;
let dataDir: string;

beforeAll(async () => {
  queue = `retries-${randomBytes(3).toString('hex')}`;
  dataDir = mkdtempSync(path.join(tmpdir(), 'ars-retries-'));
  [api, worker] = await Promise.all([
    startApiProcess({ TEMPORAL_TASK_QUEUE: queue }),
    startWorkerProcess(queue, { [KEY_ENV]: 'sk-test', DATA_DIR: dataDir }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([worker?.stop(), api?.close()]);
  unmountDisksBelow(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
  await closeTestDb();
});

async function startRun(
  who: { token: string; agentId: string },
  content: string,
): Promise<{ runId: string; taskId: string }> {
  const res = await fetch(`${api.url}/api/run/async`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${who.token}`, 'X-Agent-Id': who.agentId, 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content }] }),
  });
  expect(res.status).toBe(202);
  const body = (await res.json()) as { run_id: string; task_id: string };
  return { runId: body.run_id, taskId: body.task_id };
}

async function stream(who: { token: string; agentId: string }, taskId: string): Promise<SseFrame[]> {
  const res = await fetch(`${api.url}/api/tasks/${taskId}/stream`, {
    headers: { Authorization: `Bearer ${who.token}`, 'X-Agent-Id': who.agentId },
  });
  expect(res.status).toBe(200);
  return withoutHeartbeats(await readSse(res));
}

async function waitForEvent(runId: string, type: string, timeoutMs = 30_000): Promise<void> {
  await eventually(
    'an event of that type',
    async () => expect(await testDb().runEvent.count({ where: { runId, type } })).toBeGreaterThan(0),
    { timeout: timeoutMs, interval: 100 },
  );
}

describe('a model step retried after its worker was killed mid-stream', () => {
  let fake: FakeOpenAi;
  afterAll(() => fake?.close());

  it('closes the half message, names it discarded, streams a fresh one and bills the answer once', async () => {
    fake = await startFakeOpenAi({
      chunks: ['The ', 'second ', 'attempt ', 'answers.'],
      responses: [{ chunks: Array.from({ length: 100 }, (_, i) => `slow${i} `), delayMs: 200 }],
      usage: { prompt_tokens: 20, completion_tokens: 4 },
    });
    const tenant = await createTenant({
      provider: 'openai-compatible',
      model: 'fake-model',
      base_url: fake.baseUrl,
      api_key_env: KEY_ENV,
    });
    const who = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
    const { runId, taskId } = await startRun(who, 'tell me something');
    await waitForEvent(runId, 'TEXT_MESSAGE_CONTENT');
    await worker.crash();
    worker = await startWorkerProcess(queue, { [KEY_ENV]: 'sk-test', DATA_DIR: dataDir });

    const frames = await stream(who, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    const starts = frames.filter((f) => f.data.type === 'TEXT_MESSAGE_START').map((f) => f.data.message_id as string);
    const ends = frames.filter((f) => f.data.type === 'TEXT_MESSAGE_END').map((f) => f.data.message_id as string);
    expect(starts).toHaveLength(2);
    expect(ends).toEqual(starts); // every message closed, in order
    const retrying = frames.find(
      (f) =>
        f.data.type === 'CUSTOM' &&
        f.data.name === 'SYSTEM_STATUS' &&
        (f.data.data as { status: string }).status === 'retrying',
    );
    expect(retrying, 'a SYSTEM_STATUS retrying event').toBeDefined();
    const status = retrying!.data.data as { discarded_message_ids: string[]; attempt: number };
    expect(status.discarded_message_ids).toEqual([starts[0]]);
    expect(status.attempt).toBe(2);
    // The half message ends before the retry says so; the fresh message comes after.
    const seqOf = (f: SseFrame) => Number(f.id!.split(':')[1]);
    const firstEnd = frames.find((f) => f.data.type === 'TEXT_MESSAGE_END' && f.data.message_id === starts[0])!;
    expect(seqOf(firstEnd)).toBeLessThan(seqOf(retrying!));
    const text = frames
      .filter((f) => f.data.type === 'TEXT_MESSAGE_CONTENT' && f.data.message_id === starts[1])
      .map((f) => f.data.delta)
      .join('');
    expect(text).toBe('The second attempt answers.');
    expect(frames.at(-1)!.data).toMatchObject({ result: { text } });

    const run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
    expect([run.inputTokens, run.outputTokens]).toEqual([20, 4]); // the killed attempt reported nothing; the answer once
    const usage = frames.filter((f) => f.data.type === 'CUSTOM' && f.data.name === 'USAGE');
    expect(usage).toHaveLength(1);
  }, 120_000);
});

describe('a side-effecting tool call whose worker was killed while it ran', () => {
  it('is not run again: the retry reports it interrupted and the command ran once', async () => {
    const tenant = await createTenant({ sandbox: { run_command_approval: false } });
    const who = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
    const command = 'echo ran >> count.txt; sleep 20; echo done';
    const { runId, taskId } = await startRun(who, `/tool run_command ${JSON.stringify({ command })}`);
    await eventually(
      'the tool call to be running',
      async () => expect(await testDb().toolExecution.count({ where: { runId, status: 'running' } })).toBe(1),
      {
        timeout: 30_000,
        interval: 100,
      },
    );
    // The workspace is on its own disk image where the host can mount one, else a plain directory.
    const countFile = () =>
      [
        path.join(dataDir, 'disks', tenant.orgId, tenant.agentId, 'workspace', 'count.txt'),
        path.join(dataDir, 'workspaces', tenant.orgId, tenant.agentId, 'count.txt'),
      ].find((file) => existsSync(file));
    await eventually('the command to append its line', () => expect(readFileSync(countFile()!, 'utf8')).toBe('ran\n'), {
      interval: 100,
    });
    await worker.crash();
    worker = await startWorkerProcess(queue, { [KEY_ENV]: 'sk-test', DATA_DIR: dataDir });

    const frames = await stream(who, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    const results = frames
      .filter((f) => f.data.type === 'TOOL_CALL_RESULT')
      .map((f) => JSON.parse(f.data.content as string) as { error?: { code: string } });
    expect(results).toHaveLength(1);
    expect(results[0]!.error?.code).toBe('INTERRUPTED');
    const execution = await testDb().toolExecution.findFirstOrThrow({ where: { runId } });
    expect(execution.status).toBe('failed');
    expect(readFileSync(countFile()!, 'utf8')).toBe('ran\n');
  }, 120_000);
});

describe('a model step whose worker was killed right after it stored the run’s end', () => {
  it('is retried, finds the end stored and answers with it: one RUN_FINISHED, one answer, billed once, nothing after the end', async () => {
    const tenant = await createTenant();
    const who = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
    await worker.stop();
    const doomed = await startWorkerProcess(queue, {
      [KEY_ENV]: 'sk-test',
      DATA_DIR: dataDir,
      ARS_FAULT: 'after-run-end-stored',
    });
    const { runId, taskId } = await startRun(who, 'Hi');
    await eventually('the doomed worker to die', () => expect(isAlive(doomed.pid)).toBe(false), {
      timeout: 30_000,
      interval: 100,
    });
    expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('completed'); // stored before the kill
    worker = await startWorkerProcess(queue, { [KEY_ENV]: 'sk-test', DATA_DIR: dataDir });

    const frames = await stream(who, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    expect(frames.filter((f) => f.data.type === 'CUSTOM' && f.data.name === 'USAGE')).toHaveLength(1);
    // The retry finds the end and streams nothing more (the run's log ends with RUN_FINISHED).
    const log = await testDb().runEvent.findMany({ where: { runId }, orderBy: { seq: 'asc' } });
    expect(log.at(-1)!.type).toBe('RUN_FINISHED');
    expect(log.filter((e) => e.type === 'TEXT_MESSAGE_START')).toHaveLength(1);
    const messages = await testDb().message.findMany({ where: { taskId }, orderBy: { position: 'asc' } });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.billedAt).not.toBeNull();
    // The workflow completes once the retry answers.
    await eventually(
      'the workflow to complete',
      async () =>
        expect((await (await temporalClient()).workflow.getHandle(runId).describe()).status.name).toBe('COMPLETED'),
      { timeout: 60_000, interval: 250 },
    );
  }, 120_000);
});
