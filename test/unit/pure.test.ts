import { describe, expect, it, vi } from 'vitest';
import { EventBatcher } from '../../src/activities/event-batcher.ts';
import {
  offlineAnswer,
  OfflineModel,
  offlinePlan,
  OFFLINE_WORD_DELAY_MS,
} from '../../src/activities/models/offline-model.ts';
import { resolveModel } from '../../src/activities/models/resolve-model.ts';
import { loadConfig } from '../../src/config.ts';
import { eventId, parseEventId } from '../../src/api/streaming/event-ids.ts';
import { creditsFor } from '../../src/shared/credits.ts';
import { runRequestProblem, runRequestSchema } from '../../src/shared/run-request.ts';
import { routeRun } from '../../src/shared/routing.ts';

describe('routing', () => {
  it('honours explicit modes and routes auto by length and intent', () => {
    expect(routeRun('deep', 'hi')).toMatchObject({ mode: 'deep' });
    expect(routeRun('fast', 'make a plan')).toMatchObject({ mode: 'fast' });
    expect(routeRun('auto', 'hello')).toMatchObject({ mode: 'fast' });
    expect(routeRun('auto', 'Please research this topic')).toMatchObject({
      mode: 'deep',
      reason: expect.stringContaining('research'),
    });
    expect(routeRun('auto', 'x'.repeat(600))).toMatchObject({ mode: 'deep', reason: expect.stringContaining('600') });
  });
});

describe('run requests', () => {
  const parse = (body: unknown) => runRequestSchema.parse(body);
  it('names the 400 problems', () => {
    expect(runRequestProblem(parse({ messages: [] }))).toMatch(/empty/);
    expect(runRequestProblem(parse({ messages: [{ role: 'assistant', content: 'x' }] }))).toMatch(/last message/);
    expect(runRequestProblem(parse({ messages: [{ role: 'user', content: ' ' }] }))).toMatch(/no user query/);
    expect(runRequestProblem(parse({ messages: [{ role: 'user', content: 'ok' }] }))).toBeUndefined();
  });
  it('defaults mode and stream, accepts threadId, refuses two different task names', () => {
    expect(parse({ messages: [], threadId: 't' })).toMatchObject({ mode: 'auto', stream: true, threadId: 't' });
    expect(runRequestSchema.safeParse({ messages: [], task_id: 'a', threadId: 'b' }).success).toBe(false);
    expect(runRequestSchema.safeParse({ messages: [], timezone: 'Europe/Berlin' }).success).toBe(true);
    expect(runRequestSchema.safeParse({ messages: [], timezone: 'Nowhere/Special' }).success).toBe(false);
  });
});

describe('credits', () => {
  it('charges per thousand tokens, rounded up', () => {
    expect(creditsFor({ inputTokens: 0, outputTokens: 0 }, 1)).toBe(0);
    expect(creditsFor({ inputTokens: 1, outputTokens: 0 }, 1)).toBe(1);
    expect(creditsFor({ inputTokens: 1500, outputTokens: 500 }, 1)).toBe(2);
    expect(creditsFor({ inputTokens: 1500, outputTokens: 501 }, 1)).toBe(3);
    expect(creditsFor({ inputTokens: 1000, outputTokens: 0 }, 2.5)).toBe(3);
  });
});

describe('event ids', () => {
  it('round-trip and reject garbage', () => {
    expect(parseEventId(eventId('run_abc', 42))).toEqual({ runId: 'run_abc', seq: 42 });
    for (const bad of ['', 'run_abc', ':5', 'run_abc:-1', 'run_abc:x', 'run_abc:1.5'])
      expect(parseEventId(bad), bad).toBeUndefined();
  });
});

describe('EventBatcher', () => {
  const content = (delta: string, message_id = 'm1') => ({ type: 'TEXT_MESSAGE_CONTENT' as const, message_id, delta });
  it('merges consecutive deltas inside a window and keeps the order of other events', async () => {
    const writes: unknown[][] = [];
    const batcher = new EventBatcher(20, async (events) => void writes.push(events));
    batcher.push({ type: 'TEXT_MESSAGE_START', message_id: 'm1', role: 'assistant' });
    batcher.push(content('a'));
    batcher.push(content('b'));
    batcher.push({ type: 'TOOL_CALL_START', tool_call_id: 't', tool_call_name: 'x', metadata: {} });
    batcher.push({ type: 'TOOL_CALL_ARGS', tool_call_id: 't', delta: '{"a"' });
    batcher.push({ type: 'TOOL_CALL_ARGS', tool_call_id: 't', delta: ':1}' });
    await new Promise((r) => setTimeout(r, 40)); // past the 20 ms window: the batch is written on its own
    batcher.push(content('c'));
    await batcher.flush();
    expect(writes).toEqual([
      [
        { type: 'TEXT_MESSAGE_START', message_id: 'm1', role: 'assistant' },
        content('ab'),
        { type: 'TOOL_CALL_START', tool_call_id: 't', tool_call_name: 'x', metadata: {} },
        { type: 'TOOL_CALL_ARGS', tool_call_id: 't', delta: '{"a":1}' },
      ],
      [content('c')],
    ]);
  });
  it('surfaces a failed write', async () => {
    const batcher = new EventBatcher(0, async () => {
      throw new Error('db down');
    });
    batcher.push(content('x'));
    await expect(batcher.flush()).rejects.toThrow('db down');
  });
});

describe('the offline model', () => {
  it('is deterministic and streams the whole answer', async () => {
    const messages = [{ role: 'user' as const, content: 'ping' }];
    const chunks: string[] = [];
    for await (const c of new OfflineModel(0).stream({ messages, tools: [], signal: new AbortController().signal }))
      if (c.type === 'text') chunks.push(c.text);
    expect(chunks.join('')).toBe(offlineAnswer(messages));
    expect(chunks.length).toBeGreaterThan(3);
  });
  it('answers each deep-mode plan step for what it is, not with the same text', () => {
    const user = { role: 'user' as const, content: 'Plan a trip to Lisbon' };
    const steps = offlinePlan([user])
      .split('\n')
      .map((line) => line.replace(/^\d+\. /, ''));
    expect(steps).toEqual(['Understand the request', 'Work on: Plan a trip to Lisbon', 'Summarize the results']);
    const answers = steps.map((title, i) =>
      offlineAnswer([user, { role: 'system', content: `Plan step ${i + 1} of 3: ${title}. Do this step now.` }]),
    );
    expect(answers[0]).toBe(
      'Step 1 of 3, Understand the request: you asked "Plan a trip to Lisbon". I will work on it, then summarize.',
    );
    expect(answers[1]).toMatch(/^Step 2 of 3, Work on: Plan a trip to Lisbon: /);
    expect(answers[2]).toMatch(/^Step 3 of 3, Summarize the results: I read the request and worked on it in 2 steps\./);
    expect(new Set(answers).size).toBe(3);
  });
  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const run = async () => {
      for await (const _ of new OfflineModel(0).stream({
        messages: [{ role: 'user', content: 'a b c' }],
        tools: [],
        signal: controller.signal,
      }))
        void _;
    };
    await expect(run()).rejects.toThrow('cancelled');
  });
  it('paces its words unless the agent names the "instant" model', async () => {
    vi.useFakeTimers();
    try {
      const config = loadConfig({ DATABASE_URL: 'postgresql://x@localhost/x', JWT_SECRET: 'x'.repeat(32) });
      const request = {
        messages: [{ role: 'user' as const, content: 'a b c' }],
        tools: [],
        signal: new AbortController().signal,
      };
      const paced = resolveModel(config, { provider: 'offline' }, {}).provider.stream(request)[Symbol.asyncIterator]();
      let pacedFirst: unknown;
      void paced.next().then((r) => (pacedFirst = r.value));
      await vi.advanceTimersByTimeAsync(OFFLINE_WORD_DELAY_MS - 1);
      expect(pacedFirst).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(pacedFirst).toEqual({ type: 'text', text: expect.any(String) });

      // With the clock frozen, the instant model still streams its whole answer.
      const chunks: string[] = [];
      for await (const c of resolveModel(config, { provider: 'offline', model: 'instant' }, {}).provider.stream(
        request,
      ))
        if (c.type === 'text') chunks.push(c.text);
      expect(chunks.join('')).toBe(offlineAnswer(request.messages));
    } finally {
      vi.useRealTimers();
    }
  });
});
