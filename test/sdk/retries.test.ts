import {
  AgentRunClient,
  AuthenticationError,
  ConnectionError,
  RateLimitError,
  ServerError,
  type RunEvent,
  type RunEventRecord,
} from '@agent-run/client';
import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { startFaultProxy, type Fault, type FaultProxy } from '../support/fault-proxy.ts';
import { apiUrl, exchange } from '../support/http.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';

/** The client rules against the real service: one re-exchange on 401, Retry-After on 429, backoff on 5xx and cut connections, and Idempotency-Key. */
let tenant: Tenant;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  tenant = await createTenant();
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

interface Sent {
  path: string;
  status: number;
  at: number;
  authorization: string | null;
}

/** A fetch that records what the client sent and what came back. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    sent.push({
      path: new URL(String(input)).pathname,
      status: res.status,
      at: Date.now(),
      authorization: new Headers(init?.headers).get('authorization'),
    });
    return res;
  };
}

async function proxy(plan: (path: string, n: number) => Fault): Promise<FaultProxy> {
  const started = await startFaultProxy(apiUrl(), (req, n) => plan(new URL(req.url ?? '/', 'http://x').pathname, n));
  closers.push(started.close);
  return started;
}

describe('401: the key is exchanged again, once', () => {
  it('replaces an expired token and repeats the request', async () => {
    const claims = decodeJwt(await exchange(tenant.keys.owner));
    const past = Math.floor(Date.now() / 1000) - 7200;
    const expired = await new SignJWT({ ...claims, iat: past, exp: past + 3600 })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1', typ: 'JWT' })
      .sign(new TextEncoder().encode(inject('jwtSecret')));
    const sent: Sent[] = [];
    const client = new AgentRunClient({
      baseUrl: apiUrl(),
      apiKey: tenant.keys.owner,
      token: expired,
      agentId: tenant.agentId,
      fetch: recordingFetch(sent),
    });
    expect((await client.tasks.list()).tasks).toEqual(expect.any(Array));
    expect(sent.map((s) => `${s.path} ${s.status}`)).toEqual([
      '/api/tasks 401',
      '/api/v1/auth/exchange/agent-token 200',
      '/api/tasks 200',
    ]);
    expect(sent[0]!.authorization).toBe(`Bearer ${expired}`);
    expect(sent[2]!.authorization).not.toBe(sent[0]!.authorization);
    // The new token is cached: the next call exchanges nothing.
    await client.tasks.list();
    expect(sent).toHaveLength(4);
  });

  it('gives up after one re-exchange, and cannot renew a bare token', async () => {
    const sent: Sent[] = [];
    const revoked = new AgentRunClient({
      baseUrl: apiUrl(),
      apiKey: 'ars_live_not_a_real_key_0000000000',
      token: 'forged.jwt.token',
      agentId: tenant.agentId,
      fetch: recordingFetch(sent),
    });
    await expect(revoked.tasks.list()).rejects.toBeInstanceOf(AuthenticationError);
    expect(sent.map((s) => `${s.path} ${s.status}`)).toEqual([
      '/api/tasks 401',
      '/api/v1/auth/exchange/agent-token 401',
    ]);
    const bare: Sent[] = [];
    const client = new AgentRunClient({
      baseUrl: apiUrl(),
      token: 'forged.jwt.token',
      agentId: tenant.agentId,
      fetch: recordingFetch(bare),
    });
    await expect(client.tasks.list()).rejects.toMatchObject({ status: 401 });
    expect(bare).toHaveLength(1);
  });
});

describe('429: waits Retry-After', () => {
  let api: ApiProcess;

  beforeAll(async () => {
    api = await startApiProcess({ RATE_LIMIT_TASKS_PER_MINUTE: '2', RATE_LIMIT_WINDOW_SECONDS: '3' });
    closers.push(() => api.close());
  });

  it('retries a refused request only after the delay the api asked for', async () => {
    const sent: Sent[] = [];
    const retryAfters: number[] = [];
    const client = new AgentRunClient({
      baseUrl: api.url,
      apiKey: tenant.keys.member,
      agentId: tenant.agentId,
      fetch: async (input, init) => {
        const res = await recordingFetch(sent)(input, init);
        if (res.status === 429) retryAfters.push(Number(res.headers.get('retry-after')));
        return res;
      },
    });
    for (let i = 0; i < 4; i++) await client.tasks.list();
    const tasks = sent.filter((s) => s.path === '/api/tasks');
    const refused = tasks.findIndex((s) => s.status === 429);
    expect(refused).toBeGreaterThan(0);
    expect(retryAfters[0]).toBeGreaterThanOrEqual(1);
    const retried = tasks[refused + 1]!;
    expect(retried.status).toBe(200);
    // The retry was sent no sooner than Retry-After seconds after the 429 arrived.
    expect(retried.at - tasks[refused]!.at).toBeGreaterThanOrEqual(retryAfters[0]! * 1000 - 50);
  });

  it('throws a RateLimitError when Retry-After is longer than maxRetryAfterMs', async () => {
    const fresh = await createTenant(); // a budget of its own
    const client = new AgentRunClient({
      baseUrl: api.url,
      apiKey: fresh.keys.owner,
      agentId: fresh.agentId,
      retry: { maxRetryAfterMs: 100 },
    });
    const outcome = await Promise.all(
      [1, 2, 3, 4].map(() =>
        client.tasks.list().then(
          () => undefined,
          (e: unknown) => e,
        ),
      ),
    );
    const refused = outcome.find((e) => e !== undefined);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });
});

describe('5xx and cut connections: bounded retries with backoff', () => {
  it('retries a read through a 500 and a reset connection', async () => {
    const faulty = await proxy((path, n) => (n === 0 ? { status: 500 } : n === 1 ? 'reset' : 'forward'));
    const client = new AgentRunClient({
      baseUrl: faulty.url,
      token: await exchange(tenant.keys.owner),
      agentId: tenant.agentId,
      retry: { maxRetries: 3, baseDelayMs: 50 },
    });
    expect((await client.tasks.list()).tasks).toEqual(expect.any(Array));
    expect(faulty.requests.map((r) => r.fault)).toEqual([{ status: 500 }, 'reset', 'forward']);
  });

  it('stops after maxRetries, and never repeats a request that is not idempotent on a 500 or a cut', async () => {
    const failing = await proxy((path) => (path === '/api/tasks' ? { status: 503 } : 'reset'));
    const client = new AgentRunClient({
      baseUrl: failing.url,
      token: await exchange(tenant.keys.owner),
      agentId: tenant.agentId,
      retry: { maxRetries: 2, baseDelayMs: 20 },
    });
    await expect(client.tasks.list()).rejects.toBeInstanceOf(ServerError);
    expect(failing.requests).toHaveLength(3);
    await expect(client.tasks.comment('task_x', 'run_x', 'hello')).rejects.toBeInstanceOf(ConnectionError);
    expect(failing.requests).toHaveLength(4);
  });

  it('a run start whose answer was lost is retried with the same Idempotency-Key: one run, streamed whole', async () => {
    let runPosts = 0;
    const lossy = await proxy((path) => (path === '/api/run' && runPosts++ === 0 ? 'lose-response' : 'forward'));
    const client = new AgentRunClient({
      baseUrl: lossy.url,
      apiKey: tenant.keys.owner,
      agentId: tenant.agentId,
      retry: { baseDelayMs: 50 },
    });
    const stream = client.runs.stream({ message: 'Started once, please' });
    const events: RunEvent[] = [];
    for await (const event of stream) events.push(event);
    const posts = lossy.requests.filter((r) => r.path === '/api/run');
    expect(posts.map((r) => r.fault)).toEqual(['lose-response', 'forward']);
    expect(posts[0]!.status).toBe(200); // the api did start the run
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    expect(posts[1]!.upstreamHeaders!['idempotent-replayed']).toBe('true');
    const task = await client.tasks.get(await stream.taskId);
    expect(task.runs).toHaveLength(1);
    const stored: RunEventRecord[] = [];
    for await (const record of client.runs.events(await stream.runId)) stored.push(record);
    expect(events).toEqual(stored.map((r) => r.payload));
  });
});
