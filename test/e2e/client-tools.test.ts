import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, call, exchange, readSse, withoutHeartbeats } from '../support/http.ts';
import { eventually } from '../support/eventually.ts';
import { expectReplays } from '../support/runs.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

let tenant: Tenant;
let token: string;

beforeAll(async () => {
  tenant = await createTenant();
  token = await exchange(tenant.keys.member);
});

const headers = () => ({ Authorization: `Bearer ${token}`, 'X-Agent-Id': tenant.agentId });

/** A CopilotKit-style frontend action: the page shows a weather card; the agent never runs it. */
const showWeather = {
  name: 'show_weather',
  description: 'Shows a weather card for a city in the page and returns what it showed',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
/** The offline model calls the tool a `/tool` line names, when it is offered. */
const askForWeather = 'What is the weather in Oslo?\n/tool show_weather {"city":"Oslo"}';

const postRun = (body: unknown) => call('POST', '/api/run', { token, agentId: tenant.agentId, body });

async function storedRun(runId: string) {
  return testDb().run.findUniqueOrThrow({ where: { id: runId } });
}

describe('client-side tools', () => {
  it('AG-UI: HttpAgent offers a frontend tool, gets the call streamed and the run ended, and the answer uses the result it sends', async () => {
    const threadId = randomUUID();
    const agent = new HttpAgent({ url: `${apiUrl()}/api/ag-ui/run`, headers: headers(), threadId });
    const events: Record<string, unknown>[] = [];
    let runId = '';
    const subscriber = {
      onEvent: ({ event }: { event: unknown }) => void events.push(event as Record<string, unknown>),
      onRunStartedEvent: ({ event }: { event: { metadata?: unknown } }) =>
        void (runId = (event.metadata as { run_id: string }).run_id),
    };
    agent.addMessage({ id: randomUUID(), role: 'user', content: askForWeather });
    const first = await agent.runAgent({ runId: randomUUID(), tools: [showWeather] }, subscriber);

    for (const event of events) expect(() => EventSchema.parse(event), JSON.stringify(event)).not.toThrow();
    const types = events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END']));
    expect(types).not.toContain('TOOL_CALL_RESULT'); // the client runs it
    expect(types.at(-1)).toBe('RUN_FINISHED');
    expect(types.lastIndexOf('TOOL_CALL_END')).toBeLessThan(types.indexOf('RUN_FINISHED'));
    const call = first.newMessages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))[0]!;
    expect(call.function.name).toBe('show_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Oslo' });
    const run = await storedRun(runId);
    expect(run.status).toBe('completed');
    expect(run.result).toMatchObject({
      outcome: 'client_tool_calls',
      client_tool_calls: [{ id: call.id, name: 'show_weather', arguments: { city: 'Oslo' } }],
    });
    await expectReplays(runId, 'client-tool-called');

    // The frontend ran the action; the thread continues with its result.
    agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: call.id, content: '{"shown":"Oslo, 21°C, sunny"}' });
    const second = await agent.runAgent({ runId: randomUUID(), tools: [showWeather] });
    const answer = second.newMessages.find((m) => m.role === 'assistant');
    expect(answer?.content).toContain('show_weather → {"shown":"Oslo, 21°C, sunny"}');
    const stored = await testDb().message.findFirstOrThrow({ where: { taskId: run.taskId, role: 'tool' } });
    expect(stored.parts).toEqual({ tool_call_id: call.id, tool_name: 'show_weather' });
    const runs = await testDb().run.findMany({ where: { taskId: run.taskId } });
    expect(runs.map((r) => r.status)).toEqual(['completed', 'completed']);
  });

  it('POST /api/run: client_tools, the run ends with client_tool_calls, and a tool message continues the task', async () => {
    const res = await postRun({ messages: [{ role: 'user', content: askForWeather }], client_tools: [showWeather] });
    expect(res.status).toBe(200);
    const taskId = res.headers.get('x-task-id')!;
    const frames = withoutHeartbeats(await readSse(res));
    const finished = frames.at(-1)!.data;
    expect(finished).toMatchObject({ type: 'RUN_FINISHED', result: { outcome: 'client_tool_calls' } });
    const [pending] = (finished.result as { client_tool_calls: { id: string; name: string; arguments: unknown }[] })
      .client_tool_calls;
    expect(pending).toMatchObject({ name: 'show_weather', arguments: { city: 'Oslo' } });
    expect(frames.map((f) => f.data.type)).not.toContain('TOOL_CALL_RESULT');

    // A result for a call the run did not end with is refused.
    const wrong = await postRun({
      task_id: taskId,
      messages: [{ role: 'tool', tool_call_id: 'call_x', content: '1' }],
    });
    expect(wrong.status).toBe(400);

    const next = await postRun({
      task_id: taskId,
      messages: [{ role: 'tool', tool_call_id: pending!.id, content: '{"shown":"Oslo, 3°C"}' }],
      client_tools: [showWeather],
    });
    expect(next.status).toBe(200);
    const answer = withoutHeartbeats(await readSse(next)).at(-1)!.data;
    expect(answer).toMatchObject({ type: 'RUN_FINISHED', result: { outcome: 'completed' } });
    expect((answer.result as { text: string }).text).toContain('show_weather → {"shown":"Oslo, 3°C"}');
  });

  it('a call the client left unanswered is stored as an error result when the task continues with a user message', async () => {
    const res = await postRun({
      messages: [{ role: 'user', content: askForWeather }],
      client_tools: [showWeather],
      stream: false,
    });
    const { id: runId, task_id: taskId } = (await res.json()) as { id: string; task_id: string };
    await eventually('the run ends waiting for its client tool', async () => {
      expect((await storedRun(runId)).result).toMatchObject({ outcome: 'client_tool_calls' });
    });
    const next = await postRun({
      task_id: taskId,
      messages: [{ role: 'user', content: 'Never mind, just say hi' }],
      client_tools: [showWeather],
    });
    expect(withoutHeartbeats(await readSse(next)).at(-1)!.data).toMatchObject({
      type: 'RUN_FINISHED',
      result: { outcome: 'completed' },
    });
    const roles = await testDb().message.findMany({ where: { taskId }, orderBy: { position: 'asc' } });
    expect(roles.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(JSON.parse(roles[2]!.content)).toMatchObject({ error: { code: 'NO_RESULT' } });
  });

  it('refuses a malformed client tool (422) or one that collides with a built-in or another (400), and starts nothing', async () => {
    const runsBefore = await testDb().run.count({ where: { task: { agentId: tenant.agentId } } });
    const withTools = (client_tools: unknown[]) =>
      postRun({ messages: [{ role: 'user', content: 'hi' }], client_tools, stream: false });
    for (const tools of [
      [{ ...showWeather, name: 'linear__create_issue' }], // a tool server's namespace
      [{ ...showWeather, name: 'show weather' }],
      [{ ...showWeather, parameters: { type: 'string' } }],
    ]) {
      const res = await withTools(tools);
      expect(res.status, JSON.stringify(tools)).toBe(422);
    }
    const malformed = await withTools([{ ...showWeather, name: 'a__b' }]);
    expect(((await malformed.json()) as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual([
      'body',
      'client_tools',
      0,
      'name',
    ]);
    const builtIn = await withTools([{ ...showWeather, name: 'request_user_input' }]);
    expect(builtIn.status).toBe(400);
    expect(((await builtIn.json()) as { detail: string }).detail).toMatch(/built-in/);
    const twice = await withTools([showWeather, showWeather]);
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { detail: string }).detail).toMatch(/two client tools/);
    const agUi = await fetch(`${apiUrl()}/api/ag-ui/run`, {
      method: 'POST',
      headers: { ...headers(), 'Content-Type': 'application/json' },
      body: JSON.stringify({
        threadId: randomUUID(),
        runId: 'r',
        messages: [{ id: 'm', role: 'user', content: 'hi' }],
        tools: [{ ...showWeather, name: 'a__b' }],
      }),
    });
    expect(agUi.status).toBe(422);
    expect(await testDb().run.count({ where: { task: { agentId: tenant.agentId } } })).toBe(runsBefore);
  });
});
