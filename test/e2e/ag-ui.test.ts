import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, call, exchange, readSse } from '../support/http.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

let tenant: Tenant;
let token: string;

beforeAll(async () => {
  tenant = await createTenant();
  token = await exchange(tenant.keys.member);
});

const headers = () => ({ Authorization: `Bearer ${token}`, 'X-Agent-Id': tenant.agentId });

function runAgentInput(threadId: string, content: string, extra: Record<string, unknown> = {}) {
  return { threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: 'user', content }], tools: [], context: [], state: {}, forwardedProps: {}, ...extra };
}

/** Every frame of an AG-UI stream, each checked against @ag-ui/core's own event schema. */
async function agUiEvents(res: Response, onEvent?: (event: Record<string, unknown>) => void): Promise<Record<string, unknown>[]> {
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
    const res = await fetch(`${apiUrl()}/api/ag-ui/run`, { method: 'POST', headers: { ...headers(), 'Content-Type': 'application/json' }, body: JSON.stringify(input) });
    const events = await agUiEvents(res);
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', threadId, runId: input.runId, metadata: { run_id: expect.stringMatching(/^run_/), mode: 'fast' } });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', threadId, runId: input.runId });
    const types = events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'STATE_SNAPSHOT']));
    for (const event of events) expect(Object.keys(event).filter((key) => key.includes('_')), JSON.stringify(event)).toEqual([]);
    for (const e of events.filter((x) => x.type === 'TEXT_MESSAGE_CONTENT')) expect(e).toHaveProperty('messageId');
    // The thread is our task, with that id.
    const task = await call('GET', `/api/tasks/${threadId}`, { token, agentId: tenant.agentId });
    expect(task.status).toBe(200);
  });

  it('runs through @ag-ui/client’s HttpAgent end to end, and a second run resumes the same thread', async () => {
    const threadId = randomUUID();
    const agent = new HttpAgent({ url: `${apiUrl()}/api/ag-ui/run`, headers: headers(), threadId });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'First question' });
    const first = await agent.runAgent({ runId: randomUUID() });
    const answer = first.newMessages.find((m) => m.role === 'assistant');
    expect(answer?.content).toBeTruthy();

    agent.addMessage({ id: randomUUID(), role: 'user', content: 'A follow-up' });
    const second = await agent.runAgent({ runId: randomUUID() });
    expect(second.newMessages.some((m) => m.role === 'assistant')).toBe(true);

    const runs = await testDb().run.findMany({ where: { taskId: threadId }, orderBy: { createdAt: 'asc' } });
    expect(runs.map((r) => r.status)).toEqual(['completed', 'completed']);
    const users = await testDb().message.findMany({ where: { taskId: threadId, role: 'user' }, orderBy: { position: 'asc' } });
    expect(users.map((m) => m.content)).toEqual(['First question', 'A follow-up']);
    const stored = await testDb().message.findFirstOrThrow({ where: { runId: runs[0]!.id, role: 'assistant' }, orderBy: { position: 'desc' } });
    expect(answer!.content).toBe(stored.content);
  });

  it('carries human input as a CUSTOM event with what the client needs to answer; the stream continues after the answer', async () => {
    const threadId = randomUUID();
    const input = runAgentInput(threadId, 'Ask me.\n/tool request_user_input {"input_type":"choice","prompt":"Pick one","choices":["red","blue"]}');
    const res = await fetch(`${apiUrl()}/api/ag-ui/run`, { method: 'POST', headers: { ...headers(), 'Content-Type': 'application/json' }, body: JSON.stringify(input) });
    let answered: Promise<Response> | undefined;
    const events = await agUiEvents(res, (event) => {
      if (event.type === 'CUSTOM' && event.name === 'USER_INPUT_REQUIRED') {
        const value = event.value as { request_id: string; run_id: string; input_type: string; answer_url: string; choices: string[] };
        expect(value.choices).toEqual(['red', 'blue']);
        answered = fetch(`${apiUrl()}${value.answer_url}`, {
          method: 'POST',
          headers: { ...headers(), 'Content-Type': 'application/json' },
          body: JSON.stringify({ request_id: value.request_id, run_id: value.run_id, input_type: value.input_type, value: 'blue' }),
        });
      }
    });
    expect((await answered!).status).toBe(200);
    const types = events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT', 'CUSTOM']));
    expect(events.find((e) => e.type === 'TOOL_CALL_START')).toMatchObject({ toolCallId: expect.any(String), toolCallName: 'request_user_input' });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('refuses bad input in the spec’s error format and starts nothing', async () => {
    const post = (body: unknown, h: Record<string, string> = headers()) => fetch(`${apiUrl()}/api/ag-ui/run`, { method: 'POST', headers: { ...h, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const noThread = await post({ runId: 'r', messages: [] });
    expect(noThread.status).toBe(422);
    expect(((await noThread.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toContain('threadId');
    const lastNotUser = await post({ threadId: randomUUID(), runId: 'r', messages: [{ id: 'm', role: 'assistant', content: 'hi' }] });
    expect(lastNotUser.status).toBe(400);
    expect((await post(runAgentInput(randomUUID(), 'hi'), { 'X-Agent-Id': tenant.agentId })).status).toBe(401);
    // A thread of another organization is not continued (nor revealed beyond the spec's 403 for tasks).
    const threadId = randomUUID();
    await agUiEvents(await post(runAgentInput(threadId, 'mine')));
    const stranger = await createTenant();
    const strangerHeaders = { Authorization: `Bearer ${await exchange(stranger.keys.member)}`, 'X-Agent-Id': stranger.agentId };
    expect((await post(runAgentInput(threadId, 'theirs'), strangerHeaders)).status).toBe(403);
    expect(await testDb().run.count({ where: { taskId: threadId } })).toBe(1);
  });
});
