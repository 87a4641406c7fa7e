import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { readEvents } from '../../src/db/event-log.ts';
import { runEventSchema } from '../../src/shared/events.ts';
import { runPriorityKeys } from '../../src/shared/run-priority.ts';
import { call, exchange, readSse, userMessage, withoutHeartbeats, type SseFrame } from '../support/http.ts';
import { expectReplays } from '../support/runs.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

let tenant: Tenant;
let token: string;
let connection: Connection;

beforeAll(async () => {
  tenant = await createTenant();
  token = await exchange(tenant.keys.member);
  connection = await Connection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => connection?.close());

async function streamRun(body: unknown): Promise<{ res: Response; frames: SseFrame[] }> {
  const res = await call('POST', '/api/run', { token, agentId: tenant.agentId, body });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return { res, frames: withoutHeartbeats(await readSse(res)) };
}

describe('POST /api/run streaming', () => {
  let frames: SseFrame[];
  let runId: string;
  let taskId: string;

  beforeAll(async () => {
    ({ frames } = await streamRun(userMessage('What is durable execution?')));
    runId = frames[0]!.data.run_id as string;
    taskId = frames[0]!.data.thread_id as string;
  });

  it('streams RUN_STARTED, the text message and RUN_FINISHED, each a valid snake_case event', () => {
    const types = frames.map((f) => f.data.type).filter((t) => !t.startsWith('STATE_'));
    expect(types[0]).toBe('RUN_STARTED');
    expect(types[1]).toBe('TEXT_MESSAGE_START');
    expect(types.at(-3)).toBe('TEXT_MESSAGE_END');
    expect(frames.find((f) => f.data.type === 'CUSTOM')!.data).toMatchObject({
      name: 'USAGE',
      data: { credits: expect.any(Number), output_tokens: expect.any(Number) },
    });
    expect(types.at(-2)).toBe('CUSTOM');
    expect(types.at(-1)).toBe('RUN_FINISHED');
    expect(types.slice(2, -3).every((t) => t === 'TEXT_MESSAGE_CONTENT')).toBe(true);
    expect(types.filter((t) => t === 'TEXT_MESSAGE_CONTENT').length).toBeGreaterThan(1);
    expect(frames[1]!.data).toMatchObject({ type: 'STATE_SNAPSHOT', state: { run_status: 'pending', mode: 'fast' } });
    const statuses = frames
      .filter((f) => f.data.type === 'STATE_DELTA')
      .map((f) => (f.data.delta as { value: string }[])[0]!.value);
    expect(statuses).toEqual(['executing', 'completed']);
    for (const f of frames) {
      expect(runEventSchema.safeParse(f.data).success, JSON.stringify(f.data)).toBe(true);
      expect(Object.keys(f.data).every((k) => k === k.toLowerCase())).toBe(true);
    }
    expect(frames[0]!.data).toMatchObject({
      run_id: runId,
      thread_id: taskId,
      mode: 'fast',
      routing_reason: expect.stringMatching(/auto/),
    });
    const text = frames
      .filter((f) => f.data.type === 'TEXT_MESSAGE_CONTENT')
      .map((f) => f.data.delta)
      .join('');
    expect(text).toContain('What is durable execution?');
    expect(frames.at(-1)!.data).toMatchObject({ run_id: runId, result: { text } });
  });

  it('sends exactly the rows of the event log, in order, each with its id', async () => {
    const rows = await readEvents(testDb(), runId, 0, 10_000);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    expect(frames.map((f) => f.id)).toEqual(rows.map((r) => `${runId}:${r.seq}`));
    expect(frames.map((f) => f.data)).toEqual(rows.map((r) => r.payload));
    expect(rows.map((r) => r.type)).toEqual(frames.map((f) => f.data.type));
  });

  it('stores the task, the completed run and both sides of the conversation', async () => {
    const run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
    expect(run).toMatchObject({ taskId, status: 'completed', mode: 'fast', streamed: true });
    expect(run.outputTokens).toBeGreaterThan(0);
    const messages = await testDb().message.findMany({ where: { taskId }, orderBy: { position: 'asc' } });
    expect(messages.map((m) => [m.position, m.role])).toEqual([
      [1, 'user'],
      [2, 'assistant'],
    ]);
  });

  it('goes through one task queue round trip: RUN_STARTED is stored by the api, the model step stores the rest', async () => {
    const history = await new Client({ connection }).workflow.getHandle(runId).fetchHistory();
    const events = history.events ?? [];
    const scheduled = events
      .filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
    expect(scheduled).toEqual(['modelStep']);
    const markers = events
      .filter((e) => e.markerRecordedEventAttributes)
      .map((e) => e.markerRecordedEventAttributes!.markerName);
    // agentRun asks no patch: no local activity either (the model step stores `executing` before it streams, and the run's end with its answer)
    expect(markers).toEqual([]);
    expect(events.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(2);
    await expectReplays(runId, 'fast-run-completed');
  });

  it('shows the run in Temporal with its search attributes and a static summary and details line', async () => {
    const client = new Client({ connection });
    const description = await client.workflow.getHandle(runId).describe();
    expect(description.status.name).toBe('COMPLETED');
    expect(description.searchAttributes).toMatchObject({
      TaskId: [taskId],
      AgentId: [tenant.agentId],
      OrgId: [tenant.orgId],
      RunStatus: ['completed'],
      RunMode: ['fast'],
    });
    expect(await description.staticSummary()).toBe('agent: What is durable execution?');
    const details = await description.staticDetails();
    for (const part of [
      runId,
      tenant.agentId,
      tenant.orgId,
      taskId,
      tenant.users.member,
      'fast',
      'routing: auto',
      'source: api',
    ])
      expect(details).toContain(part);
  });

  it('starts a streamed run ahead of a background one, each with its org as the fairness key', async () => {
    const client = new Client({ connection });
    expect((await client.workflow.getHandle(runId).describe()).priority).toMatchObject({
      fairnessKey: tenant.orgId,
      priorityKey: runPriorityKeys.interactive,
    });
    const res = await call('POST', '/api/run', {
      token,
      agentId: tenant.agentId,
      body: { ...userMessage('Summarize durable execution.'), stream: false },
    });
    expect(res.status).toBe(202);
    const background = (await res.json()) as { id: string };
    expect((await client.workflow.getHandle(background.id).describe()).priority).toMatchObject({
      fairnessKey: tenant.orgId,
      priorityKey: runPriorityKeys.background,
    });
  });

  it('continues the same task in a second run, with the earlier conversation as context', async () => {
    const second = await streamRun({ ...userMessage('And why does it matter?'), task_id: taskId });
    const started = second.frames[0]!.data;
    expect(started).toMatchObject({ type: 'RUN_STARTED', thread_id: taskId });
    expect(started.run_id).not.toBe(runId);
    const text = second.frames
      .filter((f) => f.data.type === 'TEXT_MESSAGE_CONTENT')
      .map((f) => f.data.delta)
      .join('');
    // The offline model reports how much earlier conversation it was given.
    expect(text).toContain('I can see 2 earlier messages');
    const messages = await testDb().message.findMany({ where: { taskId }, orderBy: { position: 'asc' } });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[2]!.content).toBe('And why does it matter?');
  });

  it('accepts threadId as the name of task_id', async () => {
    const third = await streamRun({ ...userMessage('Third turn'), threadId: taskId });
    expect(third.frames[0]!.data.thread_id).toBe(taskId);
    expect(third.frames.at(-1)!.data.type).toBe('RUN_FINISHED');
  });

  it('routes auto-mode requests that ask for a plan to deep mode and says why', async () => {
    const { frames: deep } = await streamRun(userMessage('Make a plan to migrate our database'));
    expect(deep[0]!.data).toMatchObject({ mode: 'deep', routing_reason: expect.stringContaining('plan') });
    const { frames: fast } = await streamRun({ ...userMessage('Make a plan'), mode: 'fast' });
    expect(fast[0]!.data).toMatchObject({ mode: 'fast', routing_reason: expect.stringContaining('explicitly') });
  });
});

describe('POST /api/run request validation', () => {
  const post = (body: unknown) => call('POST', '/api/run', { token, agentId: tenant.agentId, body });

  it.each([
    ['empty messages', { messages: [] }, /must not be empty/],
    [
      'last message not from the user',
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
        ],
      },
      /last message/,
    ],
    ['no user query', { messages: [{ role: 'user', content: '   ' }] }, /no user query/],
  ])('400 for %s', async (_name, body, pattern) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(pattern);
  });

  it('422 with loc/msg/type for schema failures', async () => {
    const res = await post({
      messages: [
        { role: 'robot', content: 'a' },
        { role: 'user', content: 1 },
      ],
      mode: 'slow',
      stream: 'yes',
      timezone: 'Mars/Base',
    });
    expect(res.status).toBe(422);
    const { detail } = (await res.json()) as { detail: { loc: (string | number)[]; msg: string; type: string }[] };
    const locs = detail.map((d) => d.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining([
        'body.messages.0.role',
        'body.messages.1.content',
        'body.mode',
        'body.stream',
        'body.timezone',
      ]),
    );
    for (const d of detail)
      expect(d).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
  });

  it('400 for malformed JSON; 404 for an unknown task; nothing is stored', async () => {
    const before = await testDb().task.count({ where: { orgId: tenant.orgId } });
    const res = await call('POST', '/api/run', { token, agentId: tenant.agentId, rawBody: '{"messages": [' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: expect.any(String) });
    const missing = await post({ ...userMessage('hi'), task_id: 'task_missing' });
    expect(missing.status).toBe(404);
    expect(await testDb().task.count({ where: { orgId: tenant.orgId } })).toBe(before);
  });

  it('404 with a detail for an unknown route', async () => {
    const res = await call('GET', '/api/nothing-here', { token });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: expect.stringContaining('/api/nothing-here') });
  });
});
