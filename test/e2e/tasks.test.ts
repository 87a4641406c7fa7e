import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { newId } from '../../src/shared/ids.ts';
import { eventually } from '../support/eventually.ts';
import { call, exchange, readSse, userMessage } from '../support/http.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

type Json = Record<string, unknown>;

let tenant: Tenant;
let owner: string;
let member: string;
let outsider: string;
let temporal: Client;
let connection: Connection;

beforeAll(async () => {
  tenant = await createTenant();
  [owner, member, outsider] = await Promise.all([
    exchange(tenant.keys.owner),
    exchange(tenant.keys.member),
    exchange(tenant.keys.outsider),
  ]);
  connection = await Connection.connect({ address: inject('temporalAddress') });
  temporal = new Client({ connection });
});
afterAll(async () => connection?.close());

async function json(res: Response, status: number): Promise<Json> {
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body;
}

/** Runs a turn to its end over the SSE endpoint and returns its task id. */
async function completedTask(token: string, text: string, taskId?: string): Promise<string> {
  const res = await call('POST', '/api/run', {
    token,
    agentId: tenant.agentId,
    body: { ...userMessage(text), task_id: taskId },
  });
  expect(res.status).toBe(200);
  const frames = await readSse(res);
  expect(frames.at(-1)!.data.type).toBe('RUN_FINISHED');
  return frames[0]!.data.thread_id as string;
}

const statusOf = async (token: string, taskId: string, agentId = tenant.agentId) =>
  json(await call('GET', `/api/run/${taskId}/status`, { token, agentId }), 200);

describe('background runs', () => {
  it('POST /api/run/async answers 202 with the run metadata and where to follow it, ignoring `stream`', async () => {
    const res = await call('POST', '/api/run/async', {
      token: member,
      agentId: tenant.agentId,
      body: { ...userMessage('Queue me'), stream: true },
    });
    const body = await json(res, 202);
    const runId = body.id as string;
    const taskId = body.task_id as string;
    expect(body).toEqual({
      id: expect.stringMatching(/^run_/),
      task_id: expect.stringMatching(/^task_/),
      type: 'pending',
      status: 'pending',
      routing_reason: expect.any(String),
      stream_endpoint: null,
      created_at: expect.stringMatching(/Z$/),
      run_id: runId,
      status_url: `/api/run/${taskId}/status`,
      stream_url: `/api/tasks/${taskId}/stream`,
      events_url: `/api/runs/${runId}/events`,
    });
    expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).streamed).toBe(false);

    const done = await eventually('the run to complete', async () => {
      const s = await statusOf(member, taskId);
      expect(s.run_status).toBe('completed');
      return s;
    });
    const events = await testDb().runEvent.count({ where: { runId } });
    expect(done).toEqual({
      task_id: taskId,
      run_status: 'completed',
      active: false,
      run: {
        id: runId,
        status: 'completed',
        mode: 'fast',
        routing_reason: body.routing_reason,
        created_at: body.created_at,
        updated_at: expect.any(String),
        finished_at: expect.any(String),
        event_count: events,
        input_tokens: expect.any(Number),
        output_tokens: expect.any(Number),
        credits_used: expect.any(Number),
        error: null,
      },
    });
    expect((done.run as Json).output_tokens).toBeGreaterThan(0);
  });

  it('POST /api/run with stream:false answers 202 with exactly the background run metadata', async () => {
    const res = await call('POST', '/api/run', {
      token: member,
      agentId: tenant.agentId,
      body: { ...userMessage('Later, please'), stream: false },
    });
    const body = await json(res, 202);
    expect(body).toEqual({
      id: expect.stringMatching(/^run_/),
      task_id: expect.stringMatching(/^task_/),
      type: 'pending',
      status: 'pending',
      routing_reason: expect.any(String),
      stream_endpoint: null,
      created_at: expect.any(String),
    });
    await eventually('the run to end', async () =>
      expect((await statusOf(member, body.task_id as string)).active).toBe(false),
    );
  });

  it('POST /api/run/async refuses what POST /api/run refuses: 400, 422, 404', async () => {
    const post = (body: unknown) => call('POST', '/api/run/async', { token: member, agentId: tenant.agentId, body });
    expect((await json(await post({ messages: [] }), 400)).detail).toMatch(/must not be empty/);
    expect(((await json(await post({ messages: 'hi' }), 422)).detail as Json[])[0]).toMatchObject({
      loc: ['body', 'messages'],
    });
    await json(await post({ ...userMessage('hi'), task_id: 'task_missing' }), 404);
  });

  it('POST /api/run/async answers 402 and stores nothing when the org is out of credits', async () => {
    const broke = await createTenant();
    await testDb().org.update({ where: { id: broke.orgId }, data: { creditBalance: 0 } });
    const res = await call('POST', '/api/run/async', {
      token: await exchange(broke.keys.owner),
      agentId: broke.agentId,
      body: userMessage('hi'),
    });
    expect((await json(res, 402)).detail).toMatch(/credits/);
    expect(await testDb().task.count({ where: { orgId: broke.orgId } })).toBe(0);
  });
});

describe('GET /api/tasks', () => {
  it('lists the agent’s tasks newest first with their run status; default 50, at most `limit`', async () => {
    const fresh = await createTenant();
    const token = await exchange(fresh.keys.owner);
    const base = Date.now() - 1_000_000;
    const seeded = Array.from({ length: 55 }, (_, i) => ({
      id: newId('task'),
      orgId: fresh.orgId,
      agentId: fresh.agentId,
      userId: fresh.users.owner,
      title: `seeded ${i}`,
      createdAt: new Date(base + i * 1000),
    }));
    // Two tasks created in the same millisecond: the id breaks the tie.
    seeded[54]!.createdAt = seeded[53]!.createdAt;
    await testDb().task.createMany({ data: seeded });
    const expected = [...seeded]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      .map((t) => t.id);

    const page = await json(await call('GET', '/api/tasks', { token, agentId: fresh.agentId }), 200);
    expect(page.count).toBe(50);
    expect((page.tasks as Json[]).map((t) => t.id)).toEqual(expected.slice(0, 50));
    expect((page.tasks as Json[])[0]).toEqual({
      id: expected[0],
      title: expect.stringMatching(/^seeded /),
      agent_id: fresh.agentId,
      user_id: fresh.users.owner,
      run_status: 'idle',
      latest_run_id: null,
      latest_run_status: null,
      source: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const all = await json(await call('GET', '/api/tasks?limit=200', { token, agentId: fresh.agentId }), 200);
    expect((all.tasks as Json[]).map((t) => t.id)).toEqual(expected);
    const three = await json(await call('GET', '/api/tasks?limit=3', { token, agentId: fresh.agentId }), 200);
    expect((three.tasks as Json[]).map((t) => t.id)).toEqual(expected.slice(0, 3));
    const other = await json(await call('GET', '/api/tasks', { token, agentId: fresh.privateAgentId }), 200);
    expect(other).toEqual({ tasks: [], count: 0 });
  });

  it.each(['0', '-1', '201', 'abc', '1.5', '99999999999999999999', '-99999999999999999999'])(
    '422 for limit=%s, one problem for the one value',
    async (limit) => {
      const body = await json(
        await call('GET', `/api/tasks?limit=${limit}`, { token: owner, agentId: tenant.agentId }),
        422,
      );
      expect(body.detail).toEqual([{ loc: ['query', 'limit'], msg: expect.any(String), type: expect.any(String) }]);
    },
  );

  it('shows owners every task of the agent and members only their own', async () => {
    const memberTask = await completedTask(member, 'member task');
    const ownerTask = await completedTask(owner, 'owner task');
    const ids = async (token: string) =>
      ((await json(await call('GET', '/api/tasks', { token, agentId: tenant.agentId }), 200)).tasks as Json[]).map(
        (t) => t.id,
      );
    const ownerSees = await ids(owner);
    expect(ownerSees.indexOf(ownerTask)).toBeLessThan(ownerSees.indexOf(memberTask));
    expect(ownerSees).toContain(memberTask);
    const memberSees = await ids(member);
    expect(memberSees).toContain(memberTask);
    expect(memberSees).not.toContain(ownerTask);
    const listed = (
      (await json(await call('GET', '/api/tasks', { token: member, agentId: tenant.agentId }), 200)).tasks as Json[]
    ).find((t) => t.id === memberTask)!;
    expect(listed).toMatchObject({
      run_status: 'completed',
      latest_run_id: expect.stringMatching(/^run_/),
      latest_run_status: 'completed',
      user_id: tenant.users.member,
      title: 'member task',
    });
  });
});

describe('one task: details, messages, visibility', () => {
  let taskId: string;

  beforeAll(async () => {
    taskId = await completedTask(member, 'First question');
    await completedTask(member, 'Second question', taskId);
  });

  it('GET /api/tasks/{task_id} gives the task with its runs newest first', async () => {
    const task = await json(await call('GET', `/api/tasks/${taskId}`, { token: member, agentId: tenant.agentId }), 200);
    const runs = await testDb().run.findMany({ where: { taskId }, orderBy: { createdAt: 'desc' } });
    expect(task).toMatchObject({
      id: taskId,
      title: 'First question',
      org_id: tenant.orgId,
      agent_id: tenant.agentId,
      user_id: tenant.users.member,
      run_status: 'completed',
      latest_run_id: runs[0]!.id,
      message_count: 4,
    });
    expect(task.runs).toEqual(
      runs.map((r) => ({
        id: r.id,
        status: 'completed',
        mode: 'fast',
        routing_reason: r.routingReason,
        created_at: r.createdAt.toISOString(),
        finished_at: r.finishedAt!.toISOString(),
        input_tokens: r.inputTokens,
        output_tokens: r.outputTokens,
        credits_used: r.creditsUsed,
      })),
    );
  });

  it('GET /api/tasks/{task_id}/messages gives the conversation in order', async () => {
    const body = await json(
      await call('GET', `/api/tasks/${taskId}/messages`, { token: member, agentId: tenant.agentId }),
      200,
    );
    const messages = body.messages as Json[];
    expect(body).toMatchObject({ task_id: taskId, count: 4 });
    expect(messages.map((m) => [m.position, m.role])).toEqual([
      [1, 'user'],
      [2, 'assistant'],
      [3, 'user'],
      [4, 'assistant'],
    ]);
    expect(messages[0]).toEqual({
      id: expect.stringMatching(/^msg_/),
      role: 'user',
      content: 'First question',
      run_id: expect.stringMatching(/^run_/),
      position: 1,
      parts: null,
      created_at: expect.any(String),
    });
    expect(messages[1]!.run_id).toBe(messages[0]!.run_id);
    expect(messages[2]!.run_id).not.toBe(messages[0]!.run_id);
  });

  it('lets the owner see a member’s task', async () => {
    for (const path of [`/api/tasks/${taskId}`, `/api/tasks/${taskId}/messages`, `/api/run/${taskId}/status`]) {
      await json(await call('GET', path, { token: owner, agentId: tenant.agentId }), 200);
    }
  });

  it('403 for another user’s task, another agent’s, another org’s; 403 for an agent not granted; 404 for an unknown task', async () => {
    const ownerTask = await completedTask(owner, 'owner only');
    const other = await createTenant();
    const otherOwner = await exchange(other.keys.owner);
    const paths = (id: string) => [
      ['GET', `/api/tasks/${id}`],
      ['GET', `/api/tasks/${id}/messages`],
      ['GET', `/api/run/${id}/status`],
      ['DELETE', `/api/tasks/${id}`],
    ];
    for (const [method, path] of paths(ownerTask)) {
      expect((await json(await call(method!, path!, { token: member, agentId: tenant.agentId }), 403)).detail).toMatch(
        /another user/,
      );
    }
    for (const [method, path] of paths(taskId)) {
      await json(await call(method!, path!, { token: otherOwner, agentId: other.agentId }), 403);
      await json(await call(method!, path!, { token: owner, agentId: tenant.privateAgentId }), 403);
      await json(await call(method!, path!, { token: outsider, agentId: tenant.agentId }), 403);
    }
    for (const [method, path] of paths('task_does_not_exist')) {
      await json(await call(method!, path!, { token: owner, agentId: tenant.agentId }), 404);
    }
    await json(await call('GET', '/api/tasks', { token: outsider, agentId: tenant.agentId }), 403);
    await json(await call('GET', '/api/tasks', { token: otherOwner, agentId: tenant.agentId }), 403);
    expect(await testDb().task.count({ where: { id: { in: [taskId, ownerTask] } } })).toBe(2);
  });

  it('accepts the auth_session cookie in place of the Authorization header', async () => {
    const headers = { Cookie: `auth_session=${member}` };
    const body = await json(await call('GET', `/api/tasks/${taskId}`, { agentId: tenant.agentId, headers }), 200);
    expect(body.id).toBe(taskId);
    await json(await call('GET', `/api/tasks/${taskId}`, { agentId: tenant.agentId }), 401);
  });

  it('DELETE removes a finished task and everything of it; a second DELETE is 404', async () => {
    const doomed = await completedTask(member, 'delete me');
    const runIds = (await testDb().run.findMany({ where: { taskId: doomed } })).map((r) => r.id);
    const body = await json(
      await call('DELETE', `/api/tasks/${doomed}`, { token: member, agentId: tenant.agentId }),
      200,
    );
    expect(body).toEqual({ status: 'deleted', message: expect.stringContaining(doomed) });
    expect(await testDb().runEvent.count({ where: { runId: { in: runIds } } })).toBe(0);
    expect(await testDb().message.count({ where: { taskId: doomed } })).toBe(0);
    await json(await call('DELETE', `/api/tasks/${doomed}`, { token: member, agentId: tenant.agentId }), 404);
    await json(await call('GET', `/api/tasks/${doomed}`, { token: member, agentId: tenant.agentId }), 404);
  });
});

describe('a task with a slow active run', () => {
  let slow: FakeOpenAi;
  let slowTenant: Tenant;
  let token: string;

  beforeAll(async () => {
    slow = await startFakeOpenAi({ chunks: Array.from({ length: 20 }, (_, i) => `chunk ${i} `), delayMs: 1000 });
    slowTenant = await createTenant({ provider: 'openai-compatible', base_url: slow.baseUrl, model: 'slow-model' });
    token = await exchange(slowTenant.keys.member);
  });
  afterAll(async () => slow?.close());

  /** Starts a slow run in the background and waits until its model call is streaming. */
  async function startSlowRun(): Promise<{ taskId: string; runId: string }> {
    const started = await json(
      await call('POST', '/api/run', {
        token,
        agentId: slowTenant.agentId,
        body: { ...userMessage('take your time'), stream: false },
      }),
      202,
    );
    const taskId = started.task_id as string;
    await eventually('the run to stream', async () => {
      const run = (await statusOf(token, taskId, slowTenant.agentId)).run as Json;
      expect(run.status).toBe('executing');
      expect(run.event_count).toBeGreaterThanOrEqual(3);
    });
    return { taskId, runId: started.id as string };
  }

  it('refuses a second run on the task with 409 naming the active run; status reports it active', async () => {
    const { taskId, runId } = await startSlowRun();
    const status = await statusOf(token, taskId, slowTenant.agentId);
    expect(status).toMatchObject({
      task_id: taskId,
      run_status: 'running',
      active: true,
      run: { id: runId, status: 'executing', finished_at: null, error: null },
    });
    for (const path of ['/api/run', '/api/run/async']) {
      const res = await call('POST', path, {
        token,
        agentId: slowTenant.agentId,
        body: { ...userMessage('me too'), task_id: taskId, stream: false },
      });
      expect((await json(res, 409)).detail).toContain(runId);
    }
    expect(await testDb().run.count({ where: { taskId } })).toBe(1);
    await json(await call('DELETE', `/api/tasks/${taskId}`, { token, agentId: slowTenant.agentId }), 200);
  });

  it('DELETE terminates the active run’s workflow, then removes every row of the task', async () => {
    const { taskId, runId } = await startSlowRun();
    const body = await json(await call('DELETE', `/api/tasks/${taskId}`, { token, agentId: slowTenant.agentId }), 200);
    expect(body).toEqual({ status: 'deleted', message: expect.any(String) });

    const described = await temporal.workflow.getHandle(runId).describe();
    expect(described.status.name).toBe('TERMINATED');
    const db = testDb();
    const counts = async () =>
      Promise.all([
        db.task.count({ where: { id: taskId } }),
        db.run.count({ where: { taskId } }),
        db.message.count({ where: { taskId } }),
        db.runEvent.count({ where: { runId } }),
      ]);
    expect(await counts()).toEqual([0, 0, 0, 0]);
    await json(await call('GET', `/api/tasks/${taskId}`, { token, agentId: slowTenant.agentId }), 404);
    await json(await call('GET', `/api/run/${taskId}/status`, { token, agentId: slowTenant.agentId }), 404);
    await json(await call('DELETE', `/api/tasks/${taskId}`, { token, agentId: slowTenant.agentId }), 404);
    // The model activity still in flight cannot bring rows back: nothing to wait for, so let two of its chunks (1 s apart) pass.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await counts()).toEqual([0, 0, 0, 0]);
  });
});
