import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/db/event-log.ts';
import { newId } from '../../src/shared/ids.ts';
import { isTerminalStatus } from '../../src/shared/run-status.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { eventually } from '../support/eventually.ts';
import { call, exchange, readSse, userMessage, withoutHeartbeats, type SseFrame } from '../support/http.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

/** The ids of a run's stored events, as the streams must send them. */
async function storedIds(runId: string): Promise<string[]> {
  return (await readEvents(testDb(), runId, 0, 100_000)).map((e) => `${runId}:${e.seq}`);
}

async function waitForRunEnd(runId: string): Promise<void> {
  await eventually(
    `run ${runId} to end`,
    async () =>
      expect(isTerminalStatus((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status)).toBe(true),
    { interval: 50 },
  );
}

async function waitForEvents(runId: string, atLeast: number): Promise<void> {
  await eventually(
    `${atLeast} events of run ${runId}`,
    async () => expect((await readEvents(testDb(), runId, 0, atLeast)).length).toBeGreaterThanOrEqual(atLeast),
    { interval: 20 },
  );
}

/** Starts a background run (`stream: false`); its ids. */
async function startBackgroundRun(
  token: string,
  agentId: string,
  text = 'Tell me about durable streams',
  taskId?: string,
) {
  const res = await call('POST', '/api/run', {
    token,
    agentId,
    body: { ...userMessage(text), stream: false, task_id: taskId },
  });
  expect(res.status).toBe(202);
  const body = (await res.json()) as { id: string; task_id: string };
  return { runId: body.id, taskId: body.task_id };
}

const idsOf = (frames: SseFrame[]) => withoutHeartbeats(frames).map((f) => f.id);

/** A small seeded generator, so a failing random schedule can be replayed from its printed seed. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Reads stored frames until `max` of them arrived, then drops the connection.
 * Frames that arrive in the same chunk after the `max`-th are discarded, as a
 * client that closed its connection would never see them.
 */
async function readSomeThenDrop(res: Response, max: number, controller: AbortController): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  const parser = createParser({
    onEvent(msg) {
      const data = JSON.parse(msg.data) as SseFrame['data'];
      if (data.type !== 'HEARTBEAT' && frames.length < max) frames.push({ id: msg.id, data });
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body!) {
      parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
      if (frames.length >= max) break;
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    controller.abort();
  }
  return frames;
}

describe('GET /api/tasks/{task_id}/stream with drops and reconnects', () => {
  let fake: FakeOpenAi;
  beforeAll(async () => {
    fake = await startFakeOpenAi({ chunks: Array.from({ length: 60 }, (_, i) => `chunk-${i} `), delayMs: 30 });
    // One finished run first, so the drops below happen while the model streams, not while a cold worker starts.
    const warm = await createTenant();
    const res = await call('POST', '/api/run', {
      token: await exchange(warm.keys.owner),
      agentId: warm.agentId,
      body: userMessage('warm up'),
    });
    await readSse(res);
  });
  afterAll(async () => fake.close());

  it('delivers every event of the run exactly once, in order, to a client that keeps dropping the connection', async () => {
    const tenant = await createTenant({ provider: 'openai-compatible', base_url: fake.baseUrl, model: 'slow-model' });
    const token = await exchange(tenant.keys.member);
    const { runId, taskId } = await startBackgroundRun(token, tenant.agentId);
    const seed = Date.now();
    const random = seededRandom(seed);
    const received: SseFrame[] = [];
    let lastId: string | undefined;
    let connections = 0;
    let liveReconnects = 0;
    while (received.at(-1)?.data.type !== 'RUN_FINISHED' && received.at(-1)?.data.type !== 'RUN_ERROR') {
      connections += 1;
      expect(connections, `seed ${seed}`).toBeLessThan(90); // the 'tasks' rate limit is 100 a minute
      const run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
      if (lastId && !isTerminalStatus(run.status)) liveReconnects += 1;
      const controller = new AbortController();
      // Besides dropping after a few frames, sometimes drop at an arbitrary moment, even before any frame.
      if (random() < 0.3) setTimeout(() => controller.abort(), Math.floor(random() * 60)).unref();
      const headers: Record<string, string> = lastId ? { 'Last-Event-ID': lastId } : {};
      const res = await call('GET', `/api/tasks/${taskId}/stream`, {
        token,
        agentId: tenant.agentId,
        headers,
        signal: controller.signal,
      }).catch((err: unknown) => {
        if (controller.signal.aborted) return undefined;
        throw err;
      });
      if (!res) continue;
      expect(res.status).toBe(200);
      const frames = await readSomeThenDrop(res, 1 + Math.floor(random() * 8), controller);
      received.push(...frames);
      lastId = frames.at(-1)?.id ?? lastId;
    }
    const ids = received.map((f) => f.id);
    const run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
    console.log(
      `random drops (seed ${seed}): ${ids.length} events over ${connections} connections, ${liveReconnects} reconnects while the run was live; ` +
        `run took ${run.finishedAt!.getTime() - run.createdAt.getTime()} ms`,
    );
    expect(ids, `seed ${seed}`).toEqual(await storedIds(runId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(connections).toBeGreaterThan(5);
    expect(liveReconnects).toBeGreaterThan(0);
    const text = received
      .filter((f) => f.data.type === 'TEXT_MESSAGE_CONTENT')
      .map((f) => f.data.delta)
      .join('');
    expect(text).toBe(Array.from({ length: 60 }, (_, i) => `chunk-${i} `).join(''));
  }, 60_000);
});

describe('GET /api/tasks/{task_id}/stream', () => {
  let tenant: Tenant;
  let token: string;
  let finished: { runId: string; taskId: string };
  let ids: string[];
  const stream = (taskId: string, headers: Record<string, string> = {}, query = '') =>
    call('GET', `/api/tasks/${taskId}/stream${query}`, { token, agentId: tenant.agentId, headers });

  beforeAll(async () => {
    tenant = await createTenant();
    token = await exchange(tenant.keys.member);
    finished = await startBackgroundRun(token, tenant.agentId);
    await waitForRunEnd(finished.runId);
    ids = await storedIds(finished.runId);
  });

  it('replays a finished run and ends', async () => {
    const res = await stream(finished.taskId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-run-id')).toBe(finished.runId);
    const frames = withoutHeartbeats(await readSse(res));
    expect(frames.map((f) => f.id)).toEqual(ids);
    const stored = await readEvents(testDb(), finished.runId, 0, 10_000);
    expect(frames.map((f) => f.data)).toEqual(stored.map((e) => e.payload));
    expect(frames.at(-1)!.data.type).toBe('RUN_FINISHED');
  });

  it('resumes right after Last-Event-ID, from the header or the last_event_id query parameter', async () => {
    const fromHeader = await stream(finished.taskId, { 'Last-Event-ID': ids[2]! });
    expect(idsOf(await readSse(fromHeader))).toEqual(ids.slice(3));
    const fromQuery = await stream(finished.taskId, {}, `?last_event_id=${encodeURIComponent(ids[4]!)}`);
    expect(idsOf(await readSse(fromQuery))).toEqual(ids.slice(5));
    const both = await stream(
      finished.taskId,
      { 'Last-Event-ID': ids[1]! },
      `?last_event_id=${encodeURIComponent(ids[4]!)}`,
    );
    expect(idsOf(await readSse(both))).toEqual(ids.slice(2));
  });

  it('ends at once, empty, when Last-Event-ID is the terminal event', async () => {
    const res = await stream(finished.taskId, { 'Last-Event-ID': ids.at(-1)! });
    expect(res.status).toBe(200);
    expect(await readSse(res)).toEqual([]);
  });

  it('follows the latest run; an id of an earlier run of the task starts the latest from its beginning', async () => {
    const second = await startBackgroundRun(token, tenant.agentId, 'A second turn', finished.taskId);
    await waitForRunEnd(second.runId);
    const secondIds = await storedIds(second.runId);
    const res = await stream(finished.taskId, { 'Last-Event-ID': ids[3]! });
    expect(res.headers.get('x-run-id')).toBe(second.runId);
    expect(idsOf(await readSse(res))).toEqual(secondIds);
    finished = second;
    ids = secondIds;
  });

  it('422 for a malformed id, an id of another task, or an event the run does not have', async () => {
    const other = await startBackgroundRun(token, tenant.agentId, 'Another task');
    const cases: [Record<string, string>, string, string[]][] = [
      [{ 'Last-Event-ID': 'not-an-id' }, '', ['header', 'last-event-id']],
      [{ 'Last-Event-ID': `${finished.runId}:-1` }, '', ['header', 'last-event-id']],
      [{}, '?last_event_id=nonsense', ['query', 'last_event_id']],
      [{ 'Last-Event-ID': `${other.runId}:1` }, '', ['header', 'last-event-id']],
      [{ 'Last-Event-ID': 'run_unknown:1' }, '', ['header', 'last-event-id']],
      [{ 'Last-Event-ID': `${finished.runId}:${ids.length + 1}` }, '', ['header', 'last-event-id']],
    ];
    for (const [headers, query, loc] of cases) {
      const res = await stream(finished.taskId, headers, query);
      expect(res.status, JSON.stringify(headers) + query).toBe(422);
      const body = (await res.json()) as { detail: { loc: string[]; msg: string; type: string }[] };
      expect(body.detail).toEqual([{ loc, msg: expect.any(String), type: 'value_error' }]);
    }
  });

  it('replays a live run, then continues with its live events until the end', async () => {
    const fake = await startFakeOpenAi({ chunks: Array.from({ length: 30 }, (_, i) => `live-${i} `), delayMs: 40 });
    try {
      const slow = await createTenant({ provider: 'openai-compatible', base_url: fake.baseUrl, model: 'slow-model' });
      const slowToken = await exchange(slow.keys.owner);
      const { runId, taskId } = await startBackgroundRun(slowToken, slow.agentId);
      await waitForEvents(runId, 4);
      const connectedAt = new Date();
      expect(isTerminalStatus((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status)).toBe(false);
      const res = await call('GET', `/api/tasks/${taskId}/stream`, { token: slowToken, agentId: slow.agentId });
      const frames = withoutHeartbeats(await readSse(res));
      expect(frames.map((f) => f.id)).toEqual(await storedIds(runId));
      const stored = await readEvents(testDb(), runId, 0, 10_000);
      expect(stored.filter((e) => e.createdAt < connectedAt).length).toBeGreaterThanOrEqual(4); // replayed
      expect(stored.filter((e) => e.createdAt > connectedAt).length).toBeGreaterThan(10); // live
      expect(frames.at(-1)!.data.type).toBe('RUN_FINISHED');
    } finally {
      await fake.close();
    }
  });

  it('accepts the auth_session cookie', async () => {
    const res = await call('GET', `/api/tasks/${finished.taskId}/stream`, {
      agentId: tenant.agentId,
      headers: { Cookie: `auth_session=${token}` },
    });
    expect(res.status).toBe(200);
    expect(idsOf(await readSse(res))).toEqual(ids);
  });

  it("404 for an unknown task or one with no runs; 403 for another user's or another org's task", async () => {
    expect((await stream('task_missing')).status).toBe(404);
    const taskId = newId('task');
    await testDb().task.create({
      data: { id: taskId, orgId: tenant.orgId, agentId: tenant.agentId, userId: tenant.users.member, title: 'empty' },
    });
    const empty = await stream(taskId);
    expect(empty.status).toBe(404);
    expect(await empty.json()).toEqual({ detail: expect.stringMatching(/no runs/) });

    const ownerToken = await exchange(tenant.keys.owner);
    const ownersTask = await startBackgroundRun(ownerToken, tenant.agentId, 'The owner asks');
    expect((await stream(ownersTask.taskId)).status).toBe(403);

    const stranger = await createTenant();
    const res = await call('GET', `/api/tasks/${finished.taskId}/stream`, {
      token: await exchange(stranger.keys.owner),
      agentId: stranger.agentId,
    });
    expect(res.status).toBe(403);
    await waitForRunEnd(ownersTask.runId);
  });
});

describe('POST /api/run with Last-Event-ID', () => {
  let fake: FakeOpenAi;
  let tenant: Tenant;
  let token: string;
  const request = { ...userMessage('Stream slowly please') };

  beforeAll(async () => {
    fake = await startFakeOpenAi({ chunks: Array.from({ length: 30 }, (_, i) => `part-${i} `), delayMs: 30 });
    tenant = await createTenant({ provider: 'openai-compatible', base_url: fake.baseUrl, model: 'slow-model' });
    token = await exchange(tenant.keys.member);
  });
  afterAll(async () => fake.close());

  const post = (headers: Record<string, string>, query = '', who = token, agentId = tenant.agentId) =>
    call('POST', `/api/run${query}`, { token: who, agentId, body: request, headers });

  it('resumes the stream of the run it names instead of starting another', async () => {
    const controller = new AbortController();
    const first = await call('POST', '/api/run', {
      token,
      agentId: tenant.agentId,
      body: request,
      signal: controller.signal,
    });
    const runId = first.headers.get('x-run-id')!;
    const taskId = first.headers.get('x-task-id')!;
    const before = await readSomeThenDrop(first, 5, controller);
    expect(before).toHaveLength(5);

    const again = await post({ 'Last-Event-ID': before.at(-1)!.id! });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-run-id')).toBe(runId);
    const rest = idsOf(await readSse(again));
    expect([...before.map((f) => f.id), ...rest]).toEqual(await storedIds(runId));
    expect(await testDb().run.count({ where: { taskId } })).toBe(1);

    const ids = await storedIds(runId);
    const viaQuery = await post({}, `?last_event_id=${encodeURIComponent(ids[9]!)}`);
    expect(idsOf(await readSse(viaQuery))).toEqual(ids.slice(10));
    const atEnd = await post({ 'Last-Event-ID': ids.at(-1)! });
    expect(await readSse(atEnd)).toEqual([]);
    expect(await testDb().run.count({ where: { taskId } })).toBe(1);
  });

  it('404 for a run the caller may not see; 422 for an id that is not one', async () => {
    const ownerToken = await exchange(tenant.keys.owner);
    const ownerRun = await startBackgroundRun(ownerToken, tenant.agentId, 'Owner only');
    const hidden = await post({ 'Last-Event-ID': `${ownerRun.runId}:1` });
    expect(hidden.status).toBe(404);
    const unknown = await post({ 'Last-Event-ID': 'run_unknown:1' });
    expect(unknown.status).toBe(404);
    expect(((await hidden.json()) as { detail: string }).detail.replace(ownerRun.runId, 'X')).toBe(
      ((await unknown.json()) as { detail: string }).detail.replace('run_unknown', 'X'),
    );
    const stranger = await createTenant();
    const strangers = await post(
      { 'Last-Event-ID': `${ownerRun.runId}:1` },
      '',
      await exchange(stranger.keys.owner),
      stranger.agentId,
    );
    expect(strangers.status).toBe(404);
    const otherAgent = await post({ 'Last-Event-ID': `${ownerRun.runId}:1` }, '', ownerToken, tenant.privateAgentId);
    expect(otherAgent.status).toBe(404);

    const malformed = await post({ 'Last-Event-ID': 'garbage' });
    expect(malformed.status).toBe(422);
    expect(((await malformed.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual([
      'header',
      'last-event-id',
    ]);

    // The owner (an admin of the org) may resume it.
    await waitForRunEnd(ownerRun.runId);
    const owners = await post({ 'Last-Event-ID': `${ownerRun.runId}:1` }, '', ownerToken);
    expect(idsOf(await readSse(owners))).toEqual((await storedIds(ownerRun.runId)).slice(1));
  });
});
