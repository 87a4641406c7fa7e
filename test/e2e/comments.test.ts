import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, exchange, readSse, userMessage, withoutHeartbeats } from '../support/http.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { expectReplays } from '../support/runs.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

describe('POST /api/tasks/{task_id}/runs/{run_id}/comment', () => {
  let fake: FakeOpenAi;
  let tenant: Tenant;
  let token: string;

  beforeAll(async () => {
    fake = await startFakeOpenAi({ chunks: Array.from({ length: 12 }, (_, i) => `part${i} `), delayMs: 100 });
    tenant = await createTenant({ provider: 'openai-compatible', base_url: fake.baseUrl, model: 'slow' });
    token = await exchange(tenant.keys.member);
  });
  afterAll(async () => fake.close());

  const comment = (taskId: string, runId: string, body: unknown, who = token) =>
    call('POST', `/api/tasks/${taskId}/runs/${runId}/comment`, { token: who, agentId: tenant.agentId, body });

  it('reaches the agent mid-stream: the next model step sees it, and the stream marks it', async () => {
    const res = await call('POST', '/api/run', {
      token,
      agentId: tenant.agentId,
      body: userMessage('Write about ducks'),
    });
    const frames: { data: Record<string, unknown> }[] = [];
    let commented: Promise<Response> | undefined;
    const requestsBefore = fake.requests.length;
    await readSse(res, (frame) => {
      frames.push(frame);
      if (!commented && frame.data.type === 'TEXT_MESSAGE_CONTENT') {
        const started = frames.find((f) => f.data.type === 'RUN_STARTED')!.data;
        commented = comment(started.thread_id as string, started.run_id as string, {
          content: 'Focus on geese instead',
        });
      }
    });
    const accepted = await commented!;
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toMatchObject({ status: 'queued', comment_id: expect.stringMatching(/^cmt_/) });

    const events = withoutHeartbeats(frames as never);
    const applied = events.find((f) => f.data.type === 'CUSTOM' && f.data.name === 'SYSTEM_STATUS');
    expect(applied?.data).toMatchObject({ data: { status: 'comment_applied', content: 'Focus on geese instead' } });
    expect(events.filter((f) => f.data.type === 'TEXT_MESSAGE_START')).toHaveLength(2);
    expect(events.at(-1)!.data).toMatchObject({ type: 'RUN_FINISHED', result: { steps: 2 } });
    const second = fake.requests.slice(requestsBefore)[1] as { messages: { role: string; content: string }[] };
    expect(second.messages.at(-1)).toEqual({ role: 'user', content: 'Focus on geese instead' });

    const taskId = events[0]!.data.thread_id as string;
    const messages = await testDb().message.findMany({ where: { taskId }, orderBy: { position: 'asc' } });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    // The first step would have ended the run; the stored comment held the end back until it was answered.
    await expectReplays(events[0]!.data.run_id as string, 'comment-held-the-end');
  });

  it('refuses a comment on a finished run with 409, and over-long or empty content with 422', async () => {
    const res = await call('POST', '/api/run', { token, agentId: tenant.agentId, body: userMessage('quick') });
    const started = withoutHeartbeats(await readSse(res))[0]!.data;
    const finished = await comment(started.thread_id as string, started.run_id as string, { content: 'too late' });
    expect(finished.status).toBe(409);
    expect(((await finished.json()) as { detail: string }).detail).toMatch(/not active/);

    const long = await comment(started.thread_id as string, started.run_id as string, { content: 'x'.repeat(2001) });
    expect(long.status).toBe(422);
    expect(((await long.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual(['body', 'content']);
    expect((await comment(started.thread_id as string, started.run_id as string, { content: '   ' })).status).toBe(422);
    expect((await comment(started.thread_id as string, 'run_unknown', { content: 'hi' })).status).toBe(404);
    const owner = await exchange(tenant.keys.owner);
    const outsiderTask = await comment(
      started.thread_id as string,
      started.run_id as string,
      { content: 'hi' },
      await exchange(tenant.keys.outsider),
    );
    expect(outsiderTask.status).toBe(403);
    expect(
      (await comment(started.thread_id as string, started.run_id as string, { content: 'hi' }, owner)).status,
    ).toBe(409);
    expect(await testDb().runComment.count({ where: { runId: started.run_id as string } })).toBe(0);
  });
});
