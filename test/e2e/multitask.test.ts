import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { call, exchange, readSse, withoutHeartbeats } from '../support/http.ts';
import { answer, startBackgroundRun, waitForPending, type Caller } from '../support/runs.ts';
import { newId } from '../../src/shared/ids.ts';
import { createTenant, testDb } from '../support/tenant.ts';

/** A message the offline model answers by asking for text input: its run stays busy until answered. */
const BLOCKING = 'Wait for me.\n/tool request_user_input {"input_type":"text","prompt":"Go on?"}';

interface StoredEvent {
  event_type: string;
  event_name: string;
  payload: Record<string, unknown>;
  created_at: string;
}

let who: Caller;

beforeAll(async () => {
  const tenant = await createTenant();
  who = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
});

const post = (body: Record<string, unknown>) =>
  call('POST', '/api/run', { token: who.token, agentId: who.agentId, body });
const get = (path: string) => call('GET', path, { token: who.token, agentId: who.agentId });

async function eventsOf(runId: string): Promise<StoredEvent[]> {
  const res = await get(`/api/runs/${runId}/events?limit=500`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { events: StoredEvent[] }).events;
}

function waitForEnd(runId: string): Promise<StoredEvent> {
  return eventually(`run ${runId} to end`, async () => {
    const end = (await eventsOf(runId)).find((e) => e.event_type === 'RUN_FINISHED' || e.event_type === 'RUN_ERROR');
    expect(end).toBeDefined();
    return end!;
  });
}

async function conversation(taskId: string): Promise<{ role: string; content: string }[]> {
  const res = await get(`/api/tasks/${taskId}/messages`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { messages: { role: string; content: string }[] };
  return body.messages;
}

/** Starts a run that blocks on a text question; resolves once it is waiting. */
async function busyTask(): Promise<{ taskId: string; runId: string; requestId: string }> {
  const { taskId, runId } = await startBackgroundRun(who, { messages: [{ role: 'user', content: BLOCKING }] });
  const pending = await waitForPending(who, taskId);
  return { taskId, runId, requestId: pending.request_id };
}

const release = (taskId: string, runId: string, requestId: string) =>
  answer(who, taskId, { request_id: requestId, run_id: runId, input_type: 'text', value: 'yes' });

const startedAt = (events: StoredEvent[]) => Date.parse(events.find((e) => e.event_type === 'RUN_STARTED')!.created_at);
const endedAt = (events: StoredEvent[]) =>
  Date.parse(events.find((e) => e.event_type === 'RUN_FINISHED' || e.event_type === 'RUN_ERROR')!.created_at);

describe('multitask_strategy: a second message while a run is busy', () => {
  it('reject (the default) answers 409 and stores nothing', async () => {
    const busy = await busyTask();
    const refused = await post({
      task_id: busy.taskId,
      messages: [{ role: 'user', content: 'And now?' }],
      stream: false,
    });
    expect(refused.status).toBe(409);
    const invalid = await post({
      task_id: busy.taskId,
      messages: [{ role: 'user', content: 'x' }],
      multitask_strategy: 'later',
    });
    expect(invalid.status).toBe(422);
    expect((await conversation(busy.taskId)).map((m) => m.content)).not.toContain('And now?');
    await release(busy.taskId, busy.runId, busy.requestId);
    expect((await waitForEnd(busy.runId)).event_type).toBe('RUN_FINISHED');
  });

  it('enqueue: concurrent requests wait in order, one run active at a time, each message after what the run before wrote', async () => {
    const busy = await busyTask();
    const queued = await Promise.all(
      ['first', 'second', 'third'].map(async (word) => {
        const res = await post({
          task_id: busy.taskId,
          messages: [{ role: 'user', content: `Queued ${word}` }],
          stream: false,
          multitask_strategy: 'enqueue',
        });
        expect(res.status, await res.clone().text()).toBe(202);
        return ((await res.json()) as { id: string; status: string }).id;
      }),
    );
    // Nothing queued has started or joined the conversation while the first run waits for its answer.
    for (const runId of queued) expect(await eventsOf(runId)).toEqual([]);
    expect((await conversation(busy.taskId)).some((m) => m.content.startsWith('Queued'))).toBe(false);

    await release(busy.taskId, busy.runId, busy.requestId);
    const ends = await Promise.all(queued.map((runId) => waitForEnd(runId)));
    expect(ends.map((e) => e.event_type)).toEqual(['RUN_FINISHED', 'RUN_FINISHED', 'RUN_FINISHED']);

    // No overlap: each run started after the one before it ended.
    const histories = [await eventsOf(busy.runId), ...(await Promise.all(queued.map(eventsOf)))];
    const order = histories.slice(1).sort((a, b) => startedAt(a) - startedAt(b));
    const chain = [histories[0]!, ...order];
    for (let i = 1; i < chain.length; i++) expect(startedAt(chain[i]!)).toBeGreaterThanOrEqual(endedAt(chain[i - 1]!));

    // The conversation: each queued user message follows the previous run's answer.
    const messages = await conversation(busy.taskId);
    const users = messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(users[0]).toBe(BLOCKING);
    expect(users.slice(1).sort()).toEqual(['Queued first', 'Queued second', 'Queued third']);
    for (let i = 1; i < messages.length; i++) {
      if (messages[i]!.role === 'user') expect(messages[i - 1]!.role).not.toBe('user');
    }
  });

  it('interrupt: the busy run is cancelled with its events kept, and the new run streams to its end', async () => {
    const busy = await busyTask();
    const res = await post({
      task_id: busy.taskId,
      messages: [{ role: 'user', content: 'Never mind, do this' }],
      multitask_strategy: 'interrupt',
    });
    expect(res.status).toBe(200);
    const frames = withoutHeartbeats(await readSse(res));
    expect(frames[0]!.data.type).toBe('RUN_STARTED');
    expect(frames.at(-1)!.data.type).toBe('RUN_FINISHED');

    const old = await eventsOf(busy.runId);
    expect(old.at(-1)).toMatchObject({ event_type: 'RUN_ERROR', payload: { code: 'CANCELLED' } });
    expect(old.some((e) => e.event_name === 'USER_INPUT_REQUIRED')).toBe(true);
    expect(startedAt(await eventsOf(frames[0]!.data.run_id as string))).toBeGreaterThanOrEqual(endedAt(old));
    const users = (await conversation(busy.taskId)).filter((m) => m.role === 'user').map((m) => m.content);
    expect(users).toEqual([BLOCKING, 'Never mind, do this']);
  });

  it('rollback: the busy run is cancelled, then deleted with its messages and events when the new run starts', async () => {
    const busy = await busyTask();
    const { runId } = await startBackgroundRun(who, {
      task_id: busy.taskId,
      messages: [{ role: 'user', content: 'Start over' }],
      multitask_strategy: 'rollback',
    });
    expect((await waitForEnd(runId)).event_type).toBe('RUN_FINISHED');
    expect((await get(`/api/runs/${busy.runId}/events`)).status).toBe(404);
    const messages = await conversation(busy.taskId);
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['Start over']);
    const task = (await (await get(`/api/tasks/${busy.taskId}`)).json()) as { runs: { id: string }[] };
    expect(task.runs.map((r) => r.id)).toEqual([runId]);
  });

  it('concurrent interrupts: one run survives; queued ones are cancelled without starting; never two active at once', async () => {
    const busy = await busyTask();
    const results = await Promise.all(
      [1, 2, 3].map(async (n) => {
        const res = await post({
          task_id: busy.taskId,
          messages: [{ role: 'user', content: `Interrupt ${n}` }],
          stream: false,
          multitask_strategy: 'interrupt',
        });
        expect(res.status, await res.clone().text()).toBe(202);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    const ends = await Promise.all(results.map((runId) => waitForEnd(runId)));
    const finished = ends.filter((e) => e.event_type === 'RUN_FINISHED');
    expect(finished).toHaveLength(1);
    for (const end of ends.filter((e) => e.event_type === 'RUN_ERROR'))
      expect(end.payload).toMatchObject({ code: 'CANCELLED' });
    // Every run that started began after the one before it ended.
    const histories = [await eventsOf(busy.runId), ...(await Promise.all(results.map(eventsOf)))].filter((h) =>
      h.some((e) => e.event_type === 'RUN_STARTED'),
    );
    histories.sort((a, b) => startedAt(a) - startedAt(b));
    for (let i = 1; i < histories.length; i++)
      expect(startedAt(histories[i]!)).toBeGreaterThanOrEqual(endedAt(histories[i - 1]!));
  });

  it('reject under concurrent requests on an idle task: exactly one run starts, the others get 409', async () => {
    const { taskId, runId } = await startBackgroundRun(who, { messages: [{ role: 'user', content: 'Hi' }] });
    await waitForEnd(runId);
    const answers = await Promise.all(
      [1, 2, 3, 4].map(
        async (n) =>
          (await post({ task_id: taskId, messages: [{ role: 'user', content: `Race ${n}` }], stream: false })).status,
      ),
    );
    expect(answers.filter((s) => s === 202)).toHaveLength(1);
    expect(answers.filter((s) => s === 409)).toHaveLength(3);
    expect(await testDb().run.count({ where: { taskId } })).toBe(2);
  });

  it('rollback under concurrent requests: one new run survives, and every run it replaced is gone from the task', async () => {
    const busy = await busyTask();
    const started = await Promise.all(
      [1, 2].map(async (n) => {
        const res = await post({
          task_id: busy.taskId,
          messages: [{ role: 'user', content: `Redo ${n}` }],
          stream: false,
          multitask_strategy: 'rollback',
        });
        expect(res.status, await res.clone().text()).toBe(202);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    const runs = await eventually('one run left, completed', async () => {
      const left = await testDb().run.findMany({ where: { taskId: busy.taskId }, select: { id: true, status: true } });
      expect(left).toMatchObject([{ status: 'completed' }]);
      return left;
    });
    expect(started).toContain(runs[0]!.id);
    const users = (await conversation(busy.taskId)).filter((m) => m.role === 'user').map((m) => m.content);
    expect(users).toHaveLength(1);
    expect(users[0]).toMatch(/^Redo [12]$/);
  });

  it('a queue nobody moved (the end of the run ahead was never heard) is started by the reconciler', async () => {
    const { taskId, runId: first } = await startBackgroundRun(who, { messages: [{ role: 'user', content: 'Hello' }] });
    await waitForEnd(first);
    // What an enqueue leaves behind when every api missed the first run's terminal event.
    const queued = newId('run');
    await testDb().run.create({
      data: {
        id: queued,
        taskId,
        requestedMode: 'fast',
        mode: 'fast',
        routingReason: 'test',
        streamed: false,
        queuedAt: new Date(),
        queuedMessages: [{ id: newId('msg'), role: 'user', content: 'Left in the queue' }],
      },
    });
    expect((await waitForEnd(queued)).event_type).toBe('RUN_FINISHED');
    const users = (await conversation(taskId)).filter((m) => m.role === 'user').map((m) => m.content);
    expect(users).toEqual(['Hello', 'Left in the queue']);
  });

  it('cancel acts on the running run, not the queue; the queued runs then start in order', async () => {
    const busy = await busyTask();
    const second = await startBackgroundRun(who, {
      task_id: busy.taskId,
      messages: [{ role: 'user', content: BLOCKING }],
      multitask_strategy: 'enqueue',
    });
    const third = await startBackgroundRun(who, {
      task_id: busy.taskId,
      messages: [{ role: 'user', content: 'Third' }],
      multitask_strategy: 'enqueue',
    });
    const cancel = () =>
      call('POST', `/api/tasks/${busy.taskId}/cancel`, { token: who.token, agentId: who.agentId, body: {} });
    expect((await (await cancel()).json()) as object).toMatchObject({ run_id: busy.runId });
    expect((await waitForEnd(busy.runId)).payload).toMatchObject({ code: 'CANCELLED' });
    const pending = await waitForPending(who, busy.taskId);
    expect(pending.run_id).toBe(second.runId);
    const pause = await call('POST', `/api/tasks/${busy.taskId}/pause`, {
      token: who.token,
      agentId: who.agentId,
      body: {},
    });
    expect(pause.status).toBe(409); // the running (second) run waits for input: pause refuses
    await release(busy.taskId, second.runId, pending.request_id);
    expect((await waitForEnd(second.runId)).event_type).toBe('RUN_FINISHED');
    expect((await waitForEnd(third.runId)).event_type).toBe('RUN_FINISHED');
  });
});
