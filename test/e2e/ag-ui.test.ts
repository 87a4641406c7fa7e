import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, call, exchange, readSse } from '../support/http.ts';
import { waitForStatus } from '../support/runs.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

let tenant: Tenant;
let token: string;

beforeAll(async () => {
  tenant = await createTenant();
  token = await exchange(tenant.keys.member);
});

const headers = () => ({ Authorization: `Bearer ${token}`, 'X-Agent-Id': tenant.agentId });

function runAgentInput(threadId: string, content: string, extra: Record<string, unknown> = {}) {
  return {
    threadId,
    runId: randomUUID(),
    messages: [{ id: randomUUID(), role: 'user', content }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
    ...extra,
  };
}

/** Every frame of an AG-UI stream, each checked against @ag-ui/core's own event schema. */
async function agUiEvents(
  res: Response,
  onEvent?: (event: Record<string, unknown>) => void,
): Promise<Record<string, unknown>[]> {
  if (res.status !== 200) throw new Error(`AG-UI run answered ${res.status}: ${await res.text()}`);
  const frames = await readSse(res, (frame) => onEvent?.(frame.data));
  const events = frames.map((f) => f.data);
  for (const event of events) expect(() => EventSchema.parse(event), JSON.stringify(event)).not.toThrow();
  return events;
}

describe('POST /api/ag-ui/run (AG-UI compatibility)', () => {
  it('streams standard AG-UI events in camelCase that @ag-ui/core accepts, with the client’s thread and run ids', async () => {
    const threadId = randomUUID();
    const input = runAgentInput(threadId, 'Hello there');
    const res = await fetch(`${apiUrl()}/api/ag-ui/run`, {
      method: 'POST',
      headers: { ...headers(), 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
    const taskId = res.headers.get('x-task-id')!;
    const events = await agUiEvents(res);
    expect(events[0]).toMatchObject({
      type: 'RUN_STARTED',
      threadId,
      runId: input.runId,
      metadata: { run_id: expect.stringMatching(/^run_/), task_id: taskId, mode: 'fast' },
    });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', threadId, runId: input.runId });
    const types = events.map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining(['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'STATE_SNAPSHOT']),
    );
    for (const event of events)
      expect(
        Object.keys(event).filter((key) => key.includes('_')),
        JSON.stringify(event),
      ).toEqual([]);
    for (const e of events.filter((x) => x.type === 'TEXT_MESSAGE_CONTENT')) expect(e).toHaveProperty('messageId');
    // The thread is a task of ours, which the snake_case endpoints know by the id RUN_STARTED gave.
    expect(taskId).toMatch(/^task_[0-9a-f]{32}$/);
    const task = await call('GET', `/api/tasks/${taskId}`, { token, agentId: tenant.agentId });
    expect(task.status).toBe(200);
    // The runs list shows it came through AG-UI.
    const runs = await call('GET', `/api/runs?source=ag-ui`, { token });
    expect(((await runs.json()) as { runs: { task_id: string }[] }).runs.map((r) => r.task_id)).toContain(taskId);
  });

  it('runs through @ag-ui/client’s HttpAgent end to end, and a second run resumes the same thread', async () => {
    const threadId = randomUUID();
    const agent = new HttpAgent({ url: `${apiUrl()}/api/ag-ui/run`, headers: headers(), threadId });
    const taskIds: string[] = [];
    const onRunStartedEvent = ({ event }: { event: { metadata?: unknown } }) =>
      void taskIds.push((event.metadata as { task_id: string }).task_id);
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'First question' });
    const first = await agent.runAgent({ runId: randomUUID() }, { onRunStartedEvent });
    const answer = first.newMessages.find((m) => m.role === 'assistant');
    expect(answer?.content).toBeTruthy();

    agent.addMessage({ id: randomUUID(), role: 'user', content: 'A follow-up' });
    const second = await agent.runAgent({ runId: randomUUID() }, { onRunStartedEvent });
    expect(second.newMessages.some((m) => m.role === 'assistant')).toBe(true);

    expect(new Set(taskIds).size).toBe(1);
    const taskId = taskIds[0]!;
    const runs = await testDb().run.findMany({ where: { taskId }, orderBy: { createdAt: 'asc' } });
    expect(runs.map((r) => r.status)).toEqual(['completed', 'completed']);
    const users = await testDb().message.findMany({ where: { taskId, role: 'user' }, orderBy: { position: 'asc' } });
    expect(users.map((m) => m.content)).toEqual(['First question', 'A follow-up']);
    const stored = await testDb().message.findFirstOrThrow({
      where: { runId: runs[0]!.id, role: 'assistant' },
      orderBy: { position: 'desc' },
    });
    expect(answer!.content).toBe(stored.content);
  });

  it('carries human input as a CUSTOM event with what the client needs to answer; the stream continues after the answer', async () => {
    const threadId = randomUUID();
    const input = runAgentInput(
      threadId,
      'Ask me.\n/tool request_user_input {"input_type":"choice","prompt":"Pick one","choices":["red","blue"]}',
    );
    const res = await fetch(`${apiUrl()}/api/ag-ui/run`, {
      method: 'POST',
      headers: { ...headers(), 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
    let answered: Promise<Response> | undefined;
    const events = await agUiEvents(res, (event) => {
      if (event.type === 'CUSTOM' && event.name === 'USER_INPUT_REQUIRED') {
        const value = event.value as {
          request_id: string;
          run_id: string;
          input_type: string;
          answer_url: string;
          choices: string[];
        };
        expect(value.choices).toEqual(['red', 'blue']);
        answered = fetch(`${apiUrl()}${value.answer_url}`, {
          method: 'POST',
          headers: { ...headers(), 'Content-Type': 'application/json' },
          body: JSON.stringify({
            request_id: value.request_id,
            run_id: value.run_id,
            input_type: value.input_type,
            value: 'blue',
          }),
        });
      }
    });
    expect((await answered!).status).toBe(200);
    const types = events.map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining(['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT', 'CUSTOM']),
    );
    expect(events.find((e) => e.type === 'TOOL_CALL_START')).toMatchObject({
      toolCallId: expect.any(String),
      toolCallName: 'request_user_input',
    });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('refuses bad input in the spec’s error format and starts nothing', async () => {
    const post = (body: unknown, h: Record<string, string> = headers()) =>
      fetch(`${apiUrl()}/api/ag-ui/run`, {
        method: 'POST',
        headers: { ...h, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const noThread = await post({ runId: 'r', messages: [] });
    expect(noThread.status).toBe(422);
    expect(((await noThread.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toContain('threadId');
    const lastNotUser = await post({
      threadId: randomUUID(),
      runId: 'r',
      messages: [{ id: 'm', role: 'assistant', content: 'hi' }],
    });
    expect(lastNotUser.status).toBe(400);
    expect((await post(runAgentInput(randomUUID(), 'hi'), { 'X-Agent-Id': tenant.agentId })).status).toBe(401);
  });

  it('threads are per organization: the same threadId in another org is its own thread, answered as a new id is; the first org’s thread is untouched', async () => {
    const post = (body: unknown, h: Record<string, string>) =>
      fetch(`${apiUrl()}/api/ag-ui/run`, {
        method: 'POST',
        headers: { ...h, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const userMessages = async (taskId: string) =>
      (await testDb().message.findMany({ where: { taskId, role: 'user' }, orderBy: { position: 'asc' } })).map(
        (m) => m.content,
      );
    const threadId = randomUUID();
    const mine = await post(runAgentInput(threadId, 'mine'), headers());
    const myTask = mine.headers.get('x-task-id')!;
    await agUiEvents(mine);

    const stranger = await createTenant();
    const strangerHeaders = {
      Authorization: `Bearer ${await exchange(stranger.keys.member)}`,
      'X-Agent-Id': stranger.agentId,
    };
    // Our threadId, our task id (ids travel in URLs and logs) and an id no one used: three answers alike.
    const answers = [];
    for (const id of [threadId, myTask, randomUUID()]) {
      const res = await post(runAgentInput(id, `theirs on ${id}`), strangerHeaders);
      expect(res.status, id).toBe(200);
      const taskId = res.headers.get('x-task-id')!;
      const events = await agUiEvents(res);
      expect(events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: id, metadata: { task_id: taskId } });
      expect(await userMessages(taskId), id).toEqual([`theirs on ${id}`]); // a new thread: nothing of ours in it
      answers.push({ taskId, types: events.map((e) => e.type) });
    }
    expect(answers.map((a) => a.types)).toEqual([answers[2]!.types, answers[2]!.types, answers[2]!.types]);
    expect(new Set([myTask, ...answers.map((a) => a.taskId)]).size).toBe(4);
    // Their thread continues as theirs.
    const theirsAgain = await post(runAgentInput(threadId, 'theirs again'), strangerHeaders);
    expect(theirsAgain.headers.get('x-task-id')).toBe(answers[0]!.taskId);
    await agUiEvents(theirsAgain);
    expect(await userMessages(answers[0]!.taskId)).toEqual([`theirs on ${threadId}`, 'theirs again']);

    // Ours: one run so far, continued with its own history only.
    expect(await testDb().run.count({ where: { taskId: myTask } })).toBe(1);
    const again = await post(runAgentInput(threadId, 'mine again'), headers());
    expect(again.headers.get('x-task-id')).toBe(myTask);
    await agUiEvents(again);
    expect(await userMessages(myTask)).toEqual(['mine', 'mine again']);
    // A task started through POST /api/run continues under its own id as a threadId.
    const started = await call('POST', '/api/run/async', {
      token,
      agentId: tenant.agentId,
      body: { messages: [{ role: 'user', content: 'from the REST api' }] },
    });
    expect(started.status).toBe(202);
    const restTask = ((await started.json()) as { task_id: string }).task_id;
    await waitForStatus({ token, agentId: tenant.agentId }, restTask, 'completed');
    const continued = await post(runAgentInput(restTask, 'from AG-UI'), headers());
    expect(continued.headers.get('x-task-id')).toBe(restTask);
    await agUiEvents(continued);
    expect(await userMessages(restTask)).toEqual(['from the REST api', 'from AG-UI']);
  });
});
