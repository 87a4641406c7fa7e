import { describe, expect, it } from 'vitest';
import { AgentRunClient, type RunEvent } from '@agent-run/client';

/**
 * The SDK's stream rules at the edge of the wire, where a real api cannot be made to misbehave on
 * cue: a server that resends events the client already has, heartbeats, a drain notice, and a
 * connection that ends without a terminal event. (The same rules against the real service, with
 * a killed api, are in test/sdk/resume.test.ts.)
 */
const frame = (event: Record<string, unknown>, id?: string) =>
  `${id ? `id: ${id}\n` : ''}data: ${JSON.stringify({ timestamp: 1, ...event })}\n\n`;
const delta = (n: number) =>
  frame({ type: 'TEXT_MESSAGE_CONTENT', message_id: 'm1', delta: `d${n} ` }, `run_1:${n + 1}`);

function sse(body: string): Response {
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'x-run-id': 'run_1', 'x-task-id': 'task_1' },
  });
}

describe('RunStream', () => {
  it('yields every event once, in order, when a reconnect resends events it already has', async () => {
    const requests: { url: string; lastEventId: string | null; key: string | null }[] = [];
    const answers = [
      sse(
        frame(
          { type: 'RUN_STARTED', thread_id: 'task_1', run_id: 'run_1', mode: 'fast', routing_reason: 'r' },
          'run_1:1',
        ) +
          delta(1) +
          frame({ type: 'HEARTBEAT' }) +
          delta(2),
      ),
      // A careless server resends 2 and 3; the drain notice and heartbeats are transport.
      sse(delta(2) + delta(3) + frame({ type: 'CUSTOM', name: 'SYSTEM_STATUS', data: { status: 'reconnect' } })),
      sse(delta(3) + delta(4) + frame({ type: 'RUN_FINISHED', run_id: 'run_1', result: { text: 'done' } }, 'run_1:6')),
    ];
    const client = new AgentRunClient({
      baseUrl: 'http://api.invalid',
      token: 't',
      agentId: 'agt_1',
      retry: { baseDelayMs: 1 },
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers);
        requests.push({
          url: String(input),
          lastEventId: headers.get('last-event-id'),
          key: headers.get('idempotency-key'),
        });
        return answers.shift()!;
      },
    });
    const stream = client.runs.stream({ message: 'hi' });
    const events: RunEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => (e.type === 'TEXT_MESSAGE_CONTENT' ? e.delta.trim() : e.type))).toEqual([
      'RUN_STARTED',
      'd1',
      'd2',
      'd3',
      'd4',
      'RUN_FINISHED',
    ]);
    expect(requests.map((r) => [new URL(r.url).pathname, r.lastEventId])).toEqual([
      ['/api/run', null],
      ['/api/tasks/task_1/stream', 'run_1:3'],
      ['/api/tasks/task_1/stream', 'run_1:4'],
    ]);
    expect(requests[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(await stream.text()).toBe('d1 d2 d3 d4 ');
    expect(await stream.finalResult()).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('gives up after maxRetries connections in a row that bring nothing new', async () => {
    let calls = 0;
    const client = new AgentRunClient({
      baseUrl: 'http://api.invalid',
      token: 't',
      retry: { maxRetries: 2, baseDelayMs: 1 },
      fetch: async () => (++calls === 1 ? sse(delta(1)) : sse('')),
    });
    const stream = client.tasks.stream('task_1');
    await expect(stream.finalResult()).rejects.toMatchObject({ name: 'StreamError' });
    expect(calls).toBe(4);
    await expect(stream.runId).resolves.toBe('run_1');
  });

  it('resumes its own run with POST /api/run + Last-Event-ID when the task stream follows a newer run', async () => {
    const paths: string[] = [];
    const answers = [
      sse(
        frame(
          { type: 'RUN_STARTED', thread_id: 'task_1', run_id: 'run_1', mode: 'fast', routing_reason: 'r' },
          'run_1:1',
        ),
      ),
      new Response(
        frame(
          { type: 'RUN_STARTED', thread_id: 'task_1', run_id: 'run_2', mode: 'fast', routing_reason: 'r' },
          'run_2:1',
        ),
        { headers: { 'x-run-id': 'run_2' } },
      ),
      sse(frame({ type: 'RUN_FINISHED', run_id: 'run_1', result: {} }, 'run_1:2')),
    ];
    const client = new AgentRunClient({
      baseUrl: 'http://api.invalid',
      token: 't',
      retry: { baseDelayMs: 1 },
      fetch: async (input, init) => {
        paths.push(
          `${init?.method} ${new URL(String(input)).pathname} ${new Headers(init?.headers).get('last-event-id')}`,
        );
        return answers.shift()!;
      },
    });
    const events = [];
    for await (const event of client.runs.stream({ message: 'hi' })) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    expect(paths).toEqual(['POST /api/run null', 'GET /api/tasks/task_1/stream run_1:1', 'POST /api/run run_1:1']);
  });
});
