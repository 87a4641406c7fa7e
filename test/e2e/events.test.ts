import { beforeAll, describe, expect, it } from 'vitest';
import { appendEvents, appendEventsInTx, readEvents } from '../../src/db/event-log.ts';
import type { RunEventInput } from '../../src/shared/events.ts';
import { newId } from '../../src/shared/ids.ts';
import { isTerminalStatus } from '../../src/shared/run-status.ts';
import { startFakeOpenAi } from '../support/fake-openai.ts';
import { eventually } from '../support/eventually.ts';
import { call, exchange, readSse, userMessage, withoutHeartbeats } from '../support/http.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

interface EventRecord {
  id: string;
  run_id: string;
  event_type: string;
  event_name: string;
  payload: Record<string, unknown>;
  created_at: string;
}
interface EventPage {
  run_id: string;
  events: EventRecord[];
  next_cursor: string | null;
  count: number;
}

async function waitForRunEnd(runId: string): Promise<void> {
  await eventually(
    `run ${runId} to end`,
    async () =>
      expect(isTerminalStatus((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status)).toBe(true),
    { interval: 50 },
  );
}

/** A task and an executing run of `tenant`'s member, made directly in the database so a test can give it any history. */
async function executingRun(tenant: Tenant): Promise<string> {
  const taskId = newId('task');
  const runId = newId('run');
  await testDb().task.create({
    data: {
      id: taskId,
      orgId: tenant.orgId,
      agentId: tenant.agentId,
      userId: tenant.users.member,
      title: 'long history',
    },
  });
  await testDb().run.create({
    data: {
      id: runId,
      taskId,
      status: 'executing',
      requestedMode: 'fast',
      mode: 'fast',
      routingReason: 'test',
      streamed: false,
    },
  });
  return runId;
}

const HISTORY = 5000;

describe('GET /api/runs/{run_id}/events over a long history', () => {
  let tenant: Tenant;
  let token: string;
  let runId: string;
  const page = async (query: string, who = token, agentId = tenant.agentId): Promise<Response> =>
    call('GET', `/api/runs/${runId}/events${query}`, { token: who, agentId });
  const json = async (query: string) => {
    const res = await page(query);
    expect(res.status).toBe(200);
    return (await res.json()) as EventPage;
  };
  /** Follows next_cursor from the start (or `cursor`) until it is null or `maxPages` pages were read. */
  async function pageThrough(limit: number, cursor?: string, maxPages = Infinity) {
    const pages: EventPage[] = [];
    do {
      pages.push(await json(`?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`));
      cursor = pages.at(-1)!.next_cursor ?? undefined;
    } while (cursor && pages.length < maxPages);
    return pages;
  }
  const expectedIds = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => `${runId}:${from + i}`);

  beforeAll(async () => {
    tenant = await createTenant();
    token = await exchange(tenant.keys.member);
    runId = await executingRun(tenant);
    const body: RunEventInput[] = [
      { type: 'RUN_STARTED', thread_id: 'task', run_id: runId, mode: 'fast', routing_reason: 'test' },
      { type: 'TEXT_MESSAGE_START', message_id: 'm1', role: 'assistant' },
      ...Array.from({ length: HISTORY - 4 }, (_, i): RunEventInput => ({
        type: 'TEXT_MESSAGE_CONTENT',
        message_id: 'm1',
        delta: `d${i} `,
      })),
      { type: 'TEXT_MESSAGE_END', message_id: 'm1' },
    ];
    for (let i = 0; i < body.length; i += 1000) await appendEvents(testDb(), runId, body.slice(i, i + 1000));
  }, 60_000);

  it('keeps a cursor on a live run, even past its last event, so the client can poll', async () => {
    const pages = await pageThrough(1000, undefined, 5);
    expect(pages.map((p) => p.count)).toEqual([1000, 1000, 1000, 1000, 999]);
    expect(pages.every((p) => typeof p.next_cursor === 'string')).toBe(true);
    const empty = await json(`?limit=1000&cursor=${pages.at(-1)!.next_cursor}`);
    expect(empty).toEqual({ run_id: runId, events: [], next_cursor: pages.at(-1)!.next_cursor, count: 0 });

    // The run finishes: the terminal event and status commit together, as the workflow writes them.
    await testDb().$transaction(async (tx) => {
      await appendEventsInTx(tx, runId, [{ type: 'RUN_FINISHED', run_id: runId, result: {} }]);
      await tx.run.update({ where: { id: runId }, data: { status: 'completed', finishedAt: new Date() } });
    });
    const tail = await json(`?limit=1000&cursor=${empty.next_cursor}`);
    expect(tail.events.map((e) => e.id)).toEqual([`${runId}:${HISTORY}`]);
    expect(tail.next_cursor).toBeNull();
  });

  it.each([1000, 37])(
    'pages a finished run with limit %i: every event once, in order, next_cursor null on the last page only',
    async (limit) => {
      const pages = await pageThrough(limit);
      expect(pages).toHaveLength(Math.ceil(HISTORY / limit));
      expect(pages.flatMap((p) => p.events.map((e) => e.id))).toEqual(expectedIds(1, HISTORY));
      expect(pages.map((p) => p.next_cursor === null)).toEqual(pages.map((_, i) => i === pages.length - 1));
      for (const p of pages) expect(p.count).toBe(p.events.length);
    },
  );

  it('uses 100 as the default page size', async () => {
    const first = await json('');
    expect(first.count).toBe(100);
    expect(first.events.at(-1)!.id).toBe(`${runId}:100`);
  });

  it('costs the same at the end of the history as at its start', async () => {
    const pages = await pageThrough(1000);
    const lastCursor = pages.at(-2)!.next_cursor!;
    const time = async (query: string) => {
      const samples: number[] = [];
      for (let i = 0; i < 7; i++) {
        const started = performance.now();
        await json(query);
        samples.push(performance.now() - started);
      }
      return samples.sort((a, b) => a - b)[3]!; // median
    };
    await time('?limit=1000'); // warm up
    const first = await time('?limit=1000');
    const last = await time(`?limit=1000&cursor=${lastCursor}`);
    const first100 = await time('?limit=100');
    const deep = (await pageThrough(100, undefined, 49)).at(-1)!.next_cursor!; // after event 4900
    const last100 = await time(`?limit=100&cursor=${deep}`);
    console.log(
      `events page timings over a ${HISTORY}-event history (median of 7): limit 1000 first page ${first.toFixed(1)} ms, last page ${last.toFixed(1)} ms; ` +
        `limit 100 first page ${first100.toFixed(1)} ms, page after event 4900 ${last100.toFixed(1)} ms`,
    );
    // Loose bounds: the log above is the measurement; these only catch a page cost that grows with position.
    expect(last).toBeLessThan(first * 4 + 50);
    expect(last100).toBeLessThan(first100 * 4 + 50);
  });

  it('422 for a bad limit or a cursor that is not one of this run', async () => {
    for (const limit of ['0', '1001', 'abc', '1.5', '-3', '']) {
      const res = await page(`?limit=${limit}`);
      expect(res.status, limit).toBe(422);
      expect(((await res.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual(['query', 'limit']);
    }
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const otherRun = await executingRun(tenant);
    const garbage = [
      'garbage!',
      'abc',
      b64({ r: runId }),
      b64({ r: runId, s: -1 }),
      b64([1]),
      b64({ r: otherRun, s: 1 }),
      b64({ r: runId, s: HISTORY + 1 }),
    ];
    for (const cursor of garbage) {
      const res = await page(`?cursor=${encodeURIComponent(cursor)}`);
      expect(res.status, cursor).toBe(422);
      expect(await res.json()).toEqual({
        detail: [{ loc: ['query', 'cursor'], msg: expect.any(String), type: 'value_error' }],
      });
    }
  });

  it('hides runs the caller may not see behind 404, and lets the org owner read them', async () => {
    const unknown = await call('GET', '/api/runs/run_unknown/events', { token, agentId: tenant.agentId });
    expect(unknown.status).toBe(404);
    const stranger = await createTenant();
    const cases: [string, string][] = [
      [await exchange(stranger.keys.owner), stranger.agentId], // another org
      [await exchange(tenant.keys.outsider), tenant.agentId], // same org, not granted the agent → 403 on the agent itself
      [await exchange(tenant.keys.owner), tenant.privateAgentId], // the run's task belongs to another agent
    ];
    expect((await page('', ...cases[0]!)).status).toBe(404);
    expect((await page('', ...cases[1]!)).status).toBe(403);
    const otherAgent = await page('', ...cases[2]!);
    expect(otherAgent.status).toBe(404);
    expect(((await otherAgent.json()) as { detail: string }).detail).toBe(`Run ${runId} not found`);
    expect((await page('?limit=1', await exchange(tenant.keys.owner))).status).toBe(200);

    // A member sees only runs of their own tasks.
    const ownersRun = await executingRun(tenant);
    await testDb().task.update({
      where: { id: (await testDb().run.findUniqueOrThrow({ where: { id: ownersRun } })).taskId },
      data: { userId: tenant.users.owner },
    });
    expect((await call('GET', `/api/runs/${ownersRun}/events`, { token, agentId: tenant.agentId })).status).toBe(404);
  });

  it('accepts the auth_session cookie', async () => {
    const res = await call('GET', `/api/runs/${runId}/events?limit=1`, {
      agentId: tenant.agentId,
      headers: { Cookie: `auth_session=${token}` },
    });
    expect(res.status).toBe(200);
  });
});

describe('GET /api/runs/{run_id}/events of real runs', () => {
  it('returns the records the stream sent, with the spec fields', async () => {
    const tenant = await createTenant();
    const token = await exchange(tenant.keys.member);
    const res = await call('POST', '/api/run', {
      token,
      agentId: tenant.agentId,
      body: userMessage('What is an event log?'),
    });
    const frames = withoutHeartbeats(await readSse(res));
    const runId = frames[0]!.data.run_id as string;
    const page = (await (
      await call('GET', `/api/runs/${runId}/events?limit=1000`, { token, agentId: tenant.agentId })
    ).json()) as EventPage;
    expect(page.run_id).toBe(runId);
    expect(page.count).toBe(frames.length);
    expect(page.next_cursor).toBeNull();
    expect(page.events.map((e) => e.id)).toEqual(frames.map((f) => f.id));
    expect(page.events.map((e) => e.payload)).toEqual(frames.map((f) => f.data));
    for (const e of page.events) {
      expect(Object.keys(e).sort()).toEqual(['created_at', 'event_name', 'event_type', 'id', 'payload', 'run_id']);
      expect(e.run_id).toBe(runId);
      expect(e.event_type).toBe(e.payload.type);
      expect(e.event_name).toBe(e.event_type === 'CUSTOM' ? e.payload.name : e.event_type);
      expect(new Date(e.created_at).toISOString()).toBe(e.created_at);
    }
    expect(page.events.find((e) => e.event_type === 'CUSTOM')).toMatchObject({ event_name: 'USAGE' });
  });

  it('lets a client poll a live run with next_cursor until the tail, missing and repeating nothing', async () => {
    const fake = await startFakeOpenAi({ chunks: Array.from({ length: 30 }, (_, i) => `p${i} `), delayMs: 30 });
    try {
      const tenant = await createTenant({ provider: 'openai-compatible', base_url: fake.baseUrl, model: 'slow-model' });
      const token = await exchange(tenant.keys.member);
      const started = await call('POST', '/api/run', {
        token,
        agentId: tenant.agentId,
        body: { ...userMessage('poll me'), stream: false },
      });
      const runId = ((await started.json()) as { id: string }).id;
      const ids: string[] = [];
      let cursor: string | null | undefined;
      let shortLivePages = 0;
      do {
        const res = await call('GET', `/api/runs/${runId}/events?limit=7${cursor ? `&cursor=${cursor}` : ''}`, {
          token,
          agentId: tenant.agentId,
        });
        expect(res.status).toBe(200);
        const page = (await res.json()) as EventPage;
        ids.push(...page.events.map((e) => e.id));
        if (page.count < 7 && page.next_cursor !== null) shortLivePages += 1;
        cursor = page.next_cursor;
        if (cursor && page.count < 7) await new Promise((r) => setTimeout(r, 20)); // paces the reads of a live run's tail
      } while (cursor !== null);
      await waitForRunEnd(runId);
      expect(ids).toEqual((await readEvents(testDb(), runId, 0, 10_000)).map((e) => `${runId}:${e.seq}`));
      expect(shortLivePages).toBeGreaterThan(0);
    } finally {
      await fake.close();
    }
  });
});
