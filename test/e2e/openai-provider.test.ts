import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { readEvents } from '../../src/db/event-log.ts';
import { call, exchange, readSse, userMessage, withoutHeartbeats } from '../support/http.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { createTenant, testDb } from '../support/tenant.ts';

describe('a run on an OpenAI-compatible provider over HTTP', () => {
  let fake: FakeOpenAi;

  beforeAll(async () => {
    fake = await startFakeOpenAi({
      chunks: ['Durable ', 'runs ', 'survive ', 'crashes.'],
      usage: { prompt_tokens: 42, completion_tokens: 7 },
    });
  });
  afterAll(async () => fake.close());

  it('streams the provider chunks, sends it the system prompt and conversation, and records its usage', async () => {
    const tenant = await createTenant({
      provider: 'openai-compatible',
      base_url: fake.baseUrl,
      model: 'fake-model',
      system_prompt: 'Be brief.',
    });
    const token = await exchange(tenant.keys.owner);
    const res = await call('POST', '/api/run', { token, agentId: tenant.agentId, body: userMessage('Why Temporal?') });
    const frames = withoutHeartbeats(await readSse(res));
    const text = frames
      .filter((f) => f.data.type === 'TEXT_MESSAGE_CONTENT')
      .map((f) => f.data.delta)
      .join('');
    expect(text).toBe('Durable runs survive crashes.');
    expect(frames.at(-1)!.data).toMatchObject({
      type: 'RUN_FINISHED',
      result: { text, model: 'openai-compatible:fake-model', usage: { input_tokens: 42, output_tokens: 7 } },
    });
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({
      model: 'fake-model',
      stream: true,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Why Temporal?' },
      ],
    });
    const runId = frames[0]!.data.run_id as string;
    const run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
    expect([run.inputTokens, run.outputTokens]).toEqual([42, 7]);
  });

  it('sends HEARTBEAT frames, without ids and not stored, while the model is silent', async () => {
    const slow = await startFakeOpenAi({ chunks: ['slow ', 'answer'], delayMs: inject('heartbeatMs') * 2.5 });
    try {
      const tenant = await createTenant({ provider: 'openai-compatible', base_url: slow.baseUrl, model: 'slow-model' });
      const res = await call('POST', '/api/run', {
        token: await exchange(tenant.keys.owner),
        agentId: tenant.agentId,
        body: userMessage('hi'),
      });
      const frames = await readSse(res);
      const heartbeats = frames.filter((f) => f.data.type === 'HEARTBEAT');
      expect(heartbeats.length).toBeGreaterThanOrEqual(2);
      for (const h of heartbeats) {
        expect(h.id).toBeUndefined();
        expect(h.data.timestamp).toEqual(expect.any(Number));
      }
      const runId = withoutHeartbeats(frames)[0]!.data.run_id as string;
      const stored = await readEvents(testDb(), runId, 0, 1000);
      expect(stored.some((e) => e.type === 'HEARTBEAT')).toBe(false);
      expect(stored.length).toBe(frames.length - heartbeats.length);
    } finally {
      await slow.close();
    }
  });

  it('reports a provider that keeps failing as RUN_ERROR with code MODEL_ERROR after retries', async () => {
    const broken = await startFakeOpenAi({ chunks: [], failWith: 500 });
    try {
      const tenant = await createTenant({
        provider: 'openai-compatible',
        base_url: broken.baseUrl,
        model: 'broken-model',
      });
      const res = await call('POST', '/api/run', {
        token: await exchange(tenant.keys.owner),
        agentId: tenant.agentId,
        body: userMessage('hi'),
      });
      const frames = withoutHeartbeats(await readSse(res));
      const last = frames.at(-1)!.data;
      expect(last).toMatchObject({ type: 'RUN_ERROR', code: 'MODEL_ERROR', run_id: frames[0]!.data.run_id });
      expect(broken.requests.length).toBe(3);
      expect(frames.filter((f) => f.data.type === 'RUN_ERROR')).toHaveLength(1);
      const run = await testDb().run.findUniqueOrThrow({ where: { id: last.run_id as string } });
      expect(run.status).toBe('failed');
    } finally {
      await broken.close();
    }
  }, 60_000);

  it('fails fast with MODEL_CONFIG_ERROR when the agent names a key variable that is not set', async () => {
    const tenant = await createTenant({
      provider: 'openai-compatible',
      base_url: fake.baseUrl,
      model: 'm',
      api_key_env: 'ARS_TEST_UNSET_KEY',
    });
    const res = await call('POST', '/api/run', {
      token: await exchange(tenant.keys.owner),
      agentId: tenant.agentId,
      body: userMessage('hi'),
    });
    const frames = withoutHeartbeats(await readSse(res));
    expect(frames.at(-1)!.data).toMatchObject({ type: 'RUN_ERROR', code: 'MODEL_CONFIG_ERROR' });
    expect(JSON.stringify(frames)).not.toContain('ARS_TEST_UNSET_KEY=');
  });
});
