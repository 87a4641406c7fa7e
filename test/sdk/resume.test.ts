import { AgentRunClient, userInputRequest, type RunEvent, type RunEventRecord } from '@agent-run/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';

/**
 * The SDK's stream survives the api process dying mid-run: the client talks to an api through a
 * TCP proxy; while the run waits for input, a second api is started, the proxy moved to it and the
 * first api SIGKILLed. The client's iterator must yield every event of the run exactly once, in
 * order, the same as the stored history.
 */
let tenant: Tenant;
const apis: ApiProcess[] = [];
let proxy: TcpProxy;

beforeAll(async () => {
  tenant = await createTenant();
  apis.push(await startApiProcess());
  const first = new URL(apis[0]!.url);
  proxy = await startTcpProxy(first.hostname, Number(first.port));
});

afterAll(async () => {
  await proxy?.close();
  await Promise.all(apis.map((api) => api.close()));
});

interface Sent {
  method: string;
  path: string;
  lastEventId: string | null;
}

describe('a stream through an api that is killed mid-run', () => {
  it('resumes on the task stream with Last-Event-ID: every event once, in order, as stored', async () => {
    const sent: Sent[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      sent.push({
        method: init?.method ?? 'GET',
        path: new URL(String(input)).pathname,
        lastEventId: headers.get('last-event-id'),
      });
      return fetch(input, init);
    };
    const client = new AgentRunClient({
      baseUrl: `http://127.0.0.1:${proxy.port}`,
      apiKey: tenant.keys.owner,
      agentId: tenant.agentId,
      fetch: recordingFetch,
      retry: { maxRetries: 8, baseDelayMs: 100, maxDelayMs: 1000 },
    });
    const stream = client.runs.stream({
      message: 'Hi\n/tool request_user_input {"input_type":"text","prompt":"Your name?"}',
      mode: 'fast',
    });
    const events: RunEvent[] = [];
    let killedAfter: number | undefined;
    for await (const event of stream) {
      events.push(event);
      const request = userInputRequest(event);
      if (!request) continue;
      // The run now waits durably; its stream is open and idle. Replace the api under the client.
      apis.push(await startApiProcess());
      const next = new URL(apis[1]!.url);
      proxy.retarget(next.hostname, Number(next.port));
      await apis[0]!.kill();
      killedAfter = events.length;
      // Through the new api first with a read (retried on a dead keep-alive socket, unlike the answer, a POST the client never repeats).
      expect(await client.input.pending(await stream.taskId)).toMatchObject({ pending: true });
      expect(await client.input.answer(await stream.taskId, request, { value: 'Ada' })).toMatchObject({
        success: true,
      });
    }
    expect(killedAfter).toBeDefined();
    expect(events.length).toBeGreaterThan(killedAfter!); // events came after the kill, over the new api
    const runId = await stream.runId;
    const taskId = await stream.taskId;
    const stored: RunEventRecord[] = [];
    for await (const record of client.runs.events(runId)) stored.push(record);
    expect(events).toEqual(stored.map((r) => r.payload));
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', run_id: runId });
    expect(events.filter((e) => e.type === 'RUN_STARTED')).toHaveLength(1);
    // One run was started (one POST /api/run), and the resume asked the task stream for what followed the last event seen.
    expect(sent.filter((s) => s.method === 'POST' && s.path === '/api/run')).toHaveLength(1);
    const resumes = sent.filter((s) => s.path === `/api/tasks/${taskId}/stream`);
    expect(resumes.length).toBeGreaterThanOrEqual(1);
    expect(resumes[0]!.lastEventId).toBe(stored[killedAfter! - 1]!.id);
    expect((await client.tasks.get(taskId)).runs).toHaveLength(1);
  });
});
