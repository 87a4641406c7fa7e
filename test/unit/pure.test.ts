import { describe, expect, it } from 'vitest';
import { DeltaBuffer } from '../../src/activities/delta-buffer.ts';
import { offlineAnswer, OfflineModel } from '../../src/activities/models/offline-model.ts';
import { eventId, parseEventId } from '../../src/api/streaming/event-ids.ts';
import { creditsFor } from '../../src/shared/credits.ts';
import { runRequestProblem, runRequestSchema } from '../../src/shared/run-request.ts';
import { routeRun } from '../../src/shared/routing.ts';

describe('routing', () => {
  it('honours explicit modes and routes auto by length and intent', () => {
    expect(routeRun('deep', 'hi')).toMatchObject({ mode: 'deep' });
    expect(routeRun('fast', 'make a plan')).toMatchObject({ mode: 'fast' });
    expect(routeRun('auto', 'hello')).toMatchObject({ mode: 'fast' });
    expect(routeRun('auto', 'Please research this topic')).toMatchObject({ mode: 'deep', reason: expect.stringContaining('research') });
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
    for (const bad of ['', 'run_abc', ':5', 'run_abc:-1', 'run_abc:x', 'run_abc:1.5']) expect(parseEventId(bad), bad).toBeUndefined();
  });
});

describe('DeltaBuffer', () => {
  it('coalesces pushes inside a window into one ordered write', async () => {
    const writes: string[] = [];
    const buffer = new DeltaBuffer(20, async (t) => void writes.push(t));
    buffer.push('a');
    buffer.push('b');
    await new Promise((r) => setTimeout(r, 40));
    buffer.push('c');
    await buffer.flush();
    expect(writes).toEqual(['ab', 'c']);
  });
  it('surfaces a failed write', async () => {
    const buffer = new DeltaBuffer(0, async () => {
      throw new Error('db down');
    });
    buffer.push('x');
    await expect(buffer.flush()).rejects.toThrow('db down');
  });
});

describe('the offline model', () => {
  it('is deterministic and streams the whole answer', async () => {
    const messages = [{ role: 'user' as const, content: 'ping' }];
    const chunks: string[] = [];
    for await (const c of new OfflineModel(0).stream({ messages, signal: new AbortController().signal })) if (c.type === 'text') chunks.push(c.text);
    expect(chunks.join('')).toBe(offlineAnswer(messages));
    expect(chunks.length).toBeGreaterThan(3);
  });
  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const run = async () => {
      for await (const _ of new OfflineModel(0).stream({ messages: [{ role: 'user', content: 'a b c' }], signal: controller.signal })) void _;
    };
    await expect(run()).rejects.toThrow('cancelled');
  });
});
