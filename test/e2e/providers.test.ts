import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTemporalBinary } from '../../src/embedded/temporal-dev-server.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { startFakeAnthropic } from '../support/fake-anthropic.ts';
import { startFakeOpenAiResponses } from '../support/fake-openai-responses.ts';
import type { FakeProvider, FakeProviderOptions } from '../support/fake-sse-server.ts';
import { exchange, readSse, userMessage, withoutHeartbeats, type SseFrame } from '../support/http.ts';
import { expectOneTerminal, types } from '../support/runs.ts';
import { createTenant, testDb } from '../support/tenant.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

/**
 * The `openai` and `anthropic` providers over real HTTP, each against a fake of its
 * own API, with the key read from the variable the agent names. The shared worker
 * cannot have that variable, so this file runs its own api + worker on a private queue.
 */
const KEY_ENV = 'ARS_TEST_PROVIDER_KEY';
const SECRET = `sk-ars-test-${randomBytes(16).toString('hex')}`;

interface ProviderCase {
  provider: 'openai' | 'anthropic';
  model: string;
  start(opts: FakeProviderOptions): Promise<FakeProvider>;
  /** The header that carried the key, as the provider expects it. */
  auth(headers: IncomingHttpHeaders): string | undefined;
  expectedAuth: string;
  /** What the provider's 401 message says. */
  refusal: string;
  /** The request's system prompt and conversation, in the provider's own shape. */
  prompt(system: string, user: string): Record<string, unknown>;
  /** The tool result the next request must carry for `callId`. */
  toolResult(request: Record<string, unknown>, callId: string): unknown;
}

const cases: ProviderCase[] = [
  {
    provider: 'openai',
    model: 'gpt-4o-mini',
    start: startFakeOpenAiResponses,
    auth: (h) => h.authorization,
    expectedAuth: `Bearer ${SECRET}`,
    refusal: 'Incorrect API key provided',
    prompt: (system, user) => ({
      input: [
        { role: 'system', content: system },
        { role: 'user', content: [{ type: 'input_text', text: user }] },
      ],
    }),
    toolResult: (request, callId) =>
      (request.input as { type?: string; call_id?: string; output?: unknown }[]).find(
        (i) => i.type === 'function_call_output' && i.call_id === callId,
      )?.output,
  },
  {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    start: startFakeAnthropic,
    auth: (h) => h['x-api-key'] as string | undefined,
    expectedAuth: SECRET,
    refusal: 'invalid x-api-key',
    prompt: (system, user) => ({
      system: [{ type: 'text', text: system }],
      messages: [{ role: 'user', content: [{ type: 'text', text: user }] }],
    }),
    toolResult: (request, callId) =>
      (request.messages as { role: string; content: { type: string; tool_use_id?: string; content?: unknown }[] }[])
        .flatMap((m) => (m.role === 'user' ? m.content : []))
        .find((c) => c.type === 'tool_result' && c.tool_use_id === callId)?.content,
  },
];

let api: ApiProcess;
let worker: WorkerProcess;
let dataDir: string;

beforeAll(async () => {
  const queue = `providers-${randomBytes(3).toString('hex')}`;
  dataDir = mkdtempSync(path.join(tmpdir(), 'ars-providers-'));
  // Debug logging: the most the processes would ever write about a run.
  [api, worker] = await Promise.all([
    startApiProcess({ TEMPORAL_TASK_QUEUE: queue, LOG_LEVEL: 'debug' }),
    startWorkerProcess(queue, { [KEY_ENV]: SECRET, DATA_DIR: dataDir, LOG_LEVEL: 'debug' }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([worker?.stop(), api?.close()]);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface Who {
  token: string;
  agentId: string;
}

async function agentOn(c: ProviderCase, fake: FakeProvider): Promise<Who> {
  const tenant = await createTenant({
    provider: c.provider,
    model: c.model,
    base_url: fake.baseUrl,
    api_key_env: KEY_ENV,
    system_prompt: 'Be brief.',
  });
  return { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
}

function get(who: Who, path: string): Promise<Response> {
  return fetch(`${api.url}${path}`, { headers: { Authorization: `Bearer ${who.token}`, 'X-Agent-Id': who.agentId } });
}

/** A streamed run on the private api: its frames (no heartbeats) and the raw SSE text. */
async function streamedRun(who: Who, content: string): Promise<{ frames: SseFrame[]; raw: string }> {
  const res = await fetch(`${api.url}/api/run`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${who.token}`, 'X-Agent-Id': who.agentId, 'Content-Type': 'application/json' },
    body: JSON.stringify(userMessage(content)),
  });
  expect(res.status).toBe(200);
  const raw = await res.clone().text();
  return { frames: withoutHeartbeats(await readSse(res)), raw };
}

/** Every body the API serves about the run, read after it ended. */
async function everythingServedAbout(who: Who, frames: SseFrame[]): Promise<string> {
  const runId = frames[0]!.data.run_id as string;
  const taskId = frames[0]!.data.thread_id as string;
  const paths = [
    `/api/tasks/${taskId}`,
    `/api/tasks/${taskId}/messages`,
    `/api/runs/${runId}/events?limit=1000`,
    `/api/run/${taskId}/status`,
    `/api/tasks/${taskId}/stream`,
  ];
  const bodies = await Promise.all(
    paths.map(async (p) => {
      const res = await get(who, p);
      expect(res.status, p).toBe(200);
      return res.text();
    }),
  );
  return bodies.join('\n');
}

/** The run's Temporal history as an operator can read it (the Temporal UI or CLI), payloads decoded. */
function temporalHistoryText(runId: string): string {
  const args = ['workflow', 'show', '--workflow-id', runId, '--address', inject('temporalAddress'), '--output', 'json'];
  const json = execFileSync(ensureTemporalBinary(), args, { encoding: 'utf8' });
  const payloads = [...json.matchAll(/"data":\s*"([A-Za-z0-9+/=]+)"/g)].map((m) =>
    Buffer.from(m[1]!, 'base64').toString('utf8'),
  );
  return [json, ...payloads].join('\n');
}

describe.each(cases)('the $provider provider over HTTP', (c) => {
  it('streams the answer, reports model and usage, and sends the prompt with the key from the named variable', async () => {
    const fake = await c.start({ chunks: ['Durable ', 'runs ', 'survive.'], usage: { input: 42, output: 7 } });
    try {
      const who = await agentOn(c, fake);
      const { frames, raw } = await streamedRun(who, 'Why Temporal?');
      const text = frames
        .filter((f) => f.data.type === 'TEXT_MESSAGE_CONTENT')
        .map((f) => f.data.delta)
        .join('');
      expect(text).toBe('Durable runs survive.');
      expect(expectOneTerminal(frames)).toMatchObject({
        type: 'RUN_FINISHED',
        result: { text, model: `${c.provider}:${c.model}`, usage: { input_tokens: 42, output_tokens: 7 } },
      });
      const usage = frames.find((f) => f.data.type === 'CUSTOM' && f.data.name === 'USAGE')!.data.data;
      expect(usage).toMatchObject({
        input_tokens: 42,
        output_tokens: 7,
        total_tokens: 49,
        model: `${c.provider}:${c.model}`,
      });

      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]).toMatchObject({
        model: c.model,
        stream: true,
        ...c.prompt('Be brief.', 'Why Temporal?'),
      });
      expect(c.auth(fake.headers[0]!)).toBe(c.expectedAuth);

      expect(raw).not.toContain(SECRET);
      expect(await everythingServedAbout(who, frames)).not.toContain(SECRET);
    } finally {
      await fake.close();
    }
  });

  it('runs a tool the model calls and sends it the result', async () => {
    const fake = await c.start({
      chunks: ['Saved.'],
      responses: [
        { chunks: ['Saving that.'], toolCalls: [{ name: 'save_memory', args: { content: 'The user drinks tea' } }] },
      ],
      usage: { input: 20, output: 5 },
    });
    try {
      const who = await agentOn(c, fake);
      const { frames } = await streamedRun(who, 'Remember that I drink tea.');
      const order = types(frames);
      for (const type of ['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT'])
        expect(order, type).toContain(type);
      const start = frames.find((f) => f.data.type === 'TOOL_CALL_START')!.data;
      expect(start.tool_call_name).toBe('save_memory');
      const args = frames
        .filter((f) => f.data.type === 'TOOL_CALL_ARGS' && f.data.tool_call_id === start.tool_call_id)
        .map((f) => f.data.delta)
        .join('');
      expect(JSON.parse(args)).toEqual({ content: 'The user drinks tea' });
      const result = frames.find((f) => f.data.type === 'TOOL_CALL_RESULT')!.data;
      expect(result.tool_call_id).toBe(start.tool_call_id);

      expect(fake.requests).toHaveLength(2);
      expect(c.toolResult(fake.requests[1]!, start.tool_call_id as string)).toBe(result.content);
      expect(expectOneTerminal(frames)).toMatchObject({
        type: 'RUN_FINISHED',
        result: { text: 'Saved.', usage: { input_tokens: 40, output_tokens: 10 } },
      });
      expect(await testDb().memory.count({ where: { agentId: who.agentId, content: 'The user drinks tea' } })).toBe(1);
      expect(await everythingServedAbout(who, frames)).not.toContain(SECRET);
    } finally {
      await fake.close();
    }
  });

  it('ends with MODEL_ERROR when the provider refuses the key, with the key blanked even where the provider repeats it', async () => {
    const fake = await c.start({ chunks: [], failWith: 401, echoKeyInError: true });
    try {
      const who = await agentOn(c, fake);
      const { frames, raw } = await streamedRun(who, 'hi');
      const error = expectOneTerminal(frames);
      expect(error).toMatchObject({
        type: 'RUN_ERROR',
        code: 'MODEL_ERROR',
        message: expect.stringContaining(c.refusal),
      });
      expect(error.message).toContain('[redacted]');
      expect(JSON.stringify(error)).not.toContain(SECRET);
      expect(fake.requests).toHaveLength(1); // not retried: the SDK marks a refused key as final
      for (const h of fake.headers) expect(c.auth(h)).toBe(c.expectedAuth);
      expect(raw).not.toContain(SECRET);
      expect(await everythingServedAbout(who, frames)).not.toContain(SECRET);
      // The activity failures Temporal recorded carry the same, blanked, message.
      const history = temporalHistoryText(error.run_id as string);
      expect(history).toContain(c.refusal);
      expect(history).not.toContain(SECRET);
    } finally {
      await fake.close();
    }
  }, 60_000);
});

it('writes the key to no log line of the api or the worker (stdout and stderr)', () => {
  // The runs above went through these processes, failures included.
  expect(worker.stdout.some((line) => line.includes('model step failed'))).toBe(true);
  expect(api.logs.length).toBeGreaterThan(0);
  // The Temporal SDK's own lines (its runtime logger is routed into our JSON log) saw the failures too.
  expect([...worker.stdout, ...worker.stderr].some((line) => line.includes('Activity failed'))).toBe(true);
  for (const line of [...worker.stdout, ...worker.stderr]) expect(line).not.toContain(SECRET);
  for (const entry of api.logs) expect(JSON.stringify(entry)).not.toContain(SECRET);
});
