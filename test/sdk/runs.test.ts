import { AgentRunClient, NotFoundError, ValidationError, type RunEvent, type RunEventRecord } from '@agent-run/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl } from '../support/http.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';

let tenant: Tenant;
let client: AgentRunClient;

beforeAll(async () => {
  tenant = await createTenant();
  client = new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.owner, agentId: tenant.agentId });
});

async function history(runId: string, limit?: number): Promise<RunEventRecord[]> {
  const records: RunEventRecord[] = [];
  for await (const record of client.runs.events(runId, { limit })) records.push(record);
  return records;
}

describe('the SDK against the real service', () => {
  it('streams a run: typed events in order, the ids of the stored history, and the text of its result', async () => {
    const stream = client.runs.stream({ message: 'Hello there, say something short', mode: 'fast' });
    const events: RunEvent[] = [];
    for await (const event of stream) events.push(event);
    const runId = await stream.runId;
    expect(events[0]).toMatchObject({
      type: 'RUN_STARTED',
      run_id: runId,
      thread_id: await stream.taskId,
      mode: 'fast',
    });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', run_id: runId });
    expect(events.some((e) => e.type === 'HEARTBEAT')).toBe(false);
    const stored = await history(runId);
    expect(events).toEqual(stored.map((r) => r.payload));
    expect(stream.lastEventId).toBe(stored.at(-1)!.id);
    const final = await stream.finalResult();
    expect(final.type).toBe('RUN_FINISHED');
    const text = await stream.text();
    expect(text.length).toBeGreaterThan(0);
    expect(final.type === 'RUN_FINISHED' && final.result.text).toBe(text);
  });

  it('text() and finalResult() consume a stream nobody iterates, and a task continues with taskId', async () => {
    const first = client.runs.stream({ message: 'Remember the word kiwi' });
    expect(await first.text()).not.toBe('');
    const taskId = await first.taskId;
    const second = client.runs.stream({ message: 'And now another answer', taskId });
    const final = await second.finalResult();
    expect(final).toMatchObject({ type: 'RUN_FINISHED' });
    expect(await second.taskId).toBe(taskId);
    expect((await client.tasks.messages(taskId)).messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('starts a run in the background, waits for it, and pages its history with a small limit', async () => {
    const run = await client.runs.start({ message: 'A background hello' });
    expect(run).toMatchObject({ status: 'pending', stream_endpoint: null });
    const terminal = await client.runs.wait(run.id);
    expect(terminal).toMatchObject({ type: 'RUN_FINISHED', run_id: run.id });
    const paged = await history(run.id, 3);
    const whole = await history(run.id, 1000);
    expect(paged.length).toBeGreaterThan(3);
    expect(paged).toEqual(whole);
    expect(paged.map((r) => r.id)).toEqual(paged.map((_, i) => `${run.id}:${i + 1}`));
    const status = await client.runs.status(run.task_id);
    expect(status).toMatchObject({ task_id: run.task_id, active: false, run: { id: run.id, status: 'completed' } });
  });

  it('the same idempotencyKey twice starts one run', async () => {
    const idempotencyKey = crypto.randomUUID();
    const a = await client.runs.start({ message: 'Only once', idempotencyKey });
    const b = await client.runs.start({ message: 'Only once', idempotencyKey });
    expect(b.id).toBe(a.id);
    await client.runs.wait(a.id);
  });

  it('maps refusals to error classes with the detail', async () => {
    const missing = await client.runs.status('task_does_not_exist').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).status).toBe(404);
    const run = await client.runs.start({ message: 'Something to page' });
    const invalid = await client.runs
      .events(run.id, { cursor: 'garbage' })
      .next()
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(Array.isArray((invalid as ValidationError).detail)).toBe(true);
    expect((invalid as ValidationError).message).toMatch(/: 422 .+ \(query\.cursor\)$/);
    await client.runs.wait(run.id);
  });

  it('lists, reads and deletes tasks', async () => {
    const run = await client.runs.start({ message: 'A task to delete' });
    await client.runs.wait(run.id);
    const list = await client.tasks.list({ limit: 5 });
    expect(list.tasks.map((t) => t.id)).toContain(run.task_id);
    expect((await client.tasks.get(run.task_id)).runs[0]).toMatchObject({ id: run.id });
    expect(await client.tasks.delete(run.task_id)).toMatchObject({ status: 'deleted' });
    await expect(client.tasks.get(run.task_id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('stops at an aborted signal', async () => {
    const controller = new AbortController();
    const stream = client.runs.stream({ message: 'Abort me', signal: controller.signal });
    const seen: RunEvent[] = [];
    const done = (async () => {
      for await (const event of stream) {
        seen.push(event);
        controller.abort(new Error('enough'));
      }
    })();
    await expect(done).rejects.toThrow('enough');
    expect(seen).toHaveLength(1);
  });
});
