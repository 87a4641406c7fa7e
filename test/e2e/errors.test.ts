import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/api/app.ts';
import {
  createScratchDatabase,
  startApiProcess,
  type ApiProcess,
  type ScratchDatabase,
} from '../support/api-process.ts';
import { eventually } from '../support/eventually.ts';
import { apiUrl, call, exchange, userMessage } from '../support/http.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';

/** What must never reach a client: stack frames, library and file names, raw error class prefixes. */
const LEAKS = [
  /\bat \S+ \(/,
  /\bat .+:\d+:\d+/,
  /Prisma/i,
  /node_modules/,
  /\/work\//,
  /\b[A-Z]\w*Error:/,
  /\bstack\b/i,
  /SQL|relation "/,
];

function expectNoLeak(text: string, where: string): void {
  for (const pattern of LEAKS) expect(text, `${where}: ${text}`).not.toMatch(pattern);
}

/** `{detail: string}`, or for 422 `{detail: [{loc, msg, type}]}`, and nothing else. */
function expectErrorShape(status: number, body: unknown, where: string): void {
  expect(body, where).toBeTypeOf('object');
  expect(Object.keys(body as object), where).toEqual(['detail']);
  const detail = (body as { detail: unknown }).detail;
  if (status === 422 && Array.isArray(detail)) {
    expect(detail.length, where).toBeGreaterThan(0);
    for (const item of detail as Record<string, unknown>[]) {
      expect(Object.keys(item).sort(), where).toEqual(['loc', 'msg', 'type']);
      expect(Array.isArray(item.loc) && typeof item.msg === 'string' && typeof item.type === 'string', where).toBe(
        true,
      );
    }
  } else {
    expect(detail, where).toBeTypeOf('string');
    expect((detail as string).length, where).toBeGreaterThan(0);
  }
}

async function expectError(res: Response, status: number, where: string): Promise<{ detail: unknown }> {
  expect(res.status, where).toBe(status);
  expect(res.headers.get('content-type'), where).toMatch(/^application\/json/);
  const text = await res.text();
  expectNoLeak(text, where);
  const body = JSON.parse(text) as { detail: unknown };
  expectErrorShape(status, body, where);
  return body;
}

describe('errors of the HTTP layer', () => {
  let tenant: Tenant;
  let token: string;

  beforeAll(async () => {
    tenant = await createTenant();
    token = await exchange(tenant.keys.member);
  });

  it('answers an unknown route with 404 {detail}', async () => {
    for (const [method, path] of [
      ['GET', '/api/nope'],
      ['POST', '/nope/at/all'],
    ] as const) {
      await expectError(await call(method, path, { token, agentId: tenant.agentId }), 404, `${method} ${path}`);
    }
  });

  it('removes NUL characters from input instead of failing in the database', async () => {
    const list = await call('GET', `/api/agents/${tenant.agentId}/memories?tag=a%00b&q=x%00y`, {
      token,
      agentId: tenant.agentId,
    });
    expect(list.status, await list.clone().text()).toBe(200);
    const run = await call('POST', '/api/run', {
      token,
      agentId: tenant.agentId,
      body: { ...userMessage('hi\u0000 there'), stream: false },
    });
    expect(run.status, await run.clone().text()).toBe(202);
  });

  it('answers a method a declared path does not serve with 405 {detail} and Allow', async () => {
    for (const [method, path, allow] of [
      ['DELETE', '/api/run', 'POST'],
      ['PUT', '/api/tasks', 'GET, HEAD'],
      ['PUT', '/api/tasks/task_x', 'GET, DELETE, HEAD'],
      ['PATCH', '/api/approvals/apv_x/respond', 'POST'],
    ] as const) {
      const res = await call(method, path, { token, agentId: tenant.agentId });
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
      await expectError(res, 405, `${method} ${path}`);
    }
  });

  it('answers malformed JSON with 400 {detail}', async () => {
    for (const rawBody of ['{"messages": [', '{messages: []}', "{'a': 1}", '"just a string"', '']) {
      const res = await call('POST', '/api/run', {
        token,
        agentId: tenant.agentId,
        rawBody,
        headers: { 'Content-Length': String(Buffer.byteLength(rawBody)) },
      });
      // An empty body is no body: it is then the schema that refuses it.
      await expectError(res, rawBody === '' ? 422 : 400, `body ${JSON.stringify(rawBody)}`);
    }
  });

  it(`answers a body over ${MAX_BODY_BYTES} bytes with 413 {detail}`, async () => {
    const content = 'x'.repeat(MAX_BODY_BYTES);
    const res = await call('POST', '/api/run', { token, agentId: tenant.agentId, body: userMessage(content) });
    const body = await expectError(res, 413, 'oversized body');
    expect(body.detail).toMatch(/too large/);
    // Just under the limit is read (and then refused by the schema, not by its size).
    const under = await call('POST', '/api/run', {
      token,
      agentId: tenant.agentId,
      body: { messages: [], padding: 'x'.repeat(MAX_BODY_BYTES - 100) },
    });
    await expectError(under, 400, 'body just under the limit (empty messages)');
  });

  it('answers a missing or bad token with 401 {detail} and WWW-Authenticate', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: 'Bearer not-a-jwt' },
      { Authorization: 'Basic abc' },
    ];
    for (const headers of attempts) {
      const res = await call('GET', '/api/tasks', { agentId: tenant.agentId, headers });
      await expectError(res, 401, JSON.stringify(headers));
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });
});

describe('an unexpected failure', () => {
  let scratch: ScratchDatabase;
  let broken: ApiProcess;

  beforeAll(async () => {
    // An api on an empty database: every query fails, as on a broken database.
    scratch = await createScratchDatabase();
    broken = await startApiProcess({ DATABASE_URL: scratch.url });
  });
  afterAll(async () => {
    await broken?.close();
    await scratch?.drop();
  });

  it('is a 500 whose body names only a request id, which the log carries with the error', async () => {
    const tenant = await createTenant();
    const token = await exchange(tenant.keys.member);
    const headers = {
      Authorization: `Bearer ${token}`,
      'X-Agent-Id': tenant.agentId,
      'Content-Type': 'application/json',
    };
    const res = await fetch(`${broken.url}/api/run`, {
      method: 'POST',
      headers,
      body: JSON.stringify(userMessage('hi')),
    });
    const body = await expectError(res, 500, 'broken database');
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    expect(body.detail).toBe(`Internal server error (request id ${requestId})`);
    const logged = () => broken.logs.find((l) => l.msg === 'unexpected error' && l.requestId === requestId);
    await eventually('the error logged', () => expect(logged()).toBeDefined());
    expect(logged()).toMatchObject({ level: 50, err: { stack: expect.any(String) } });

    // A caller's own X-Request-Id (a safe token) is kept, in the header, the body and the log.
    const mine = `client-${Date.now()}`;
    const again = await fetch(`${broken.url}/api/run`, {
      method: 'POST',
      headers: { ...headers, 'X-Request-Id': mine },
      body: JSON.stringify(userMessage('hi')),
    });
    expect(again.headers.get('x-request-id')).toBe(mine);
    expect(((await again.json()) as { detail: string }).detail).toBe(`Internal server error (request id ${mine})`);
    await eventually('the error logged with the caller’s request id', () =>
      expect(broken.logs.some((l) => l.msg === 'unexpected error' && l.requestId === mine)).toBe(true),
    );
  });
});

interface Operation {
  parameters?: { in: string; name: string }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}

/** Values no parameter expects: wrong types, huge numbers, odd unicode, injection-looking text. */
const ODD_VALUES = [
  'does_not_exist',
  '💥\u202e',
  '%00',
  'x'.repeat(300),
  "1' OR '1'='1",
  '-1',
  '1e308',
  '99999999999999999999999',
  'null',
  '[]',
];

/** Bodies of the wrong shape for every operation: arrays, nulls, wrong types, deep nesting, NUL bytes. */
const ODD_BODIES: unknown[] = [
  [],
  null,
  42,
  { messages: 'x' },
  { messages: [null] },
  { messages: [{ role: 1, content: null }] },
  { messages: [{ role: 'user', content: ['a'] }], mode: 'turbo', stream: 'yes' },
  { messages: [{ role: 'user', content: 'x' }], task_id: 123, timezone: 'Mars/Olympus' },
  { content: 1e308, decision: { a: 1 }, limit: -1 },
  { content: 'y'.repeat(5000) },
  { api_key: ['a'], __proto__: { admin: true } },
  { nested: JSON.parse('['.repeat(500) + ']'.repeat(500)) as unknown },
];

describe('every documented operation, sent bad requests', () => {
  let replica: ApiProcess;
  let tenant: Tenant;
  let token: string;

  beforeAll(async () => {
    // Its own replica with limits out of the way, so every request reaches the checks under test.
    replica = await startApiProcess({
      RATE_LIMIT_RUNS_PER_MINUTE: '100000',
      RATE_LIMIT_TASKS_PER_MINUTE: '100000',
      FLOW_FAILURES_PER_ADDRESS: '100000',
    });
    tenant = await createTenant();
    token = await exchange(tenant.keys.member);
  });
  afterAll(async () => replica?.close());

  it('answers each with a documented 4xx whose body is {detail} and leaks nothing', async () => {
    const document = (await (await fetch(`${apiUrl()}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const seen = new Map<string, number>();
    for (const [path, ops] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const queryNames = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        // Nothing of the request to get wrong (GET /api/agents): the member's request is a good one.
        if (!path.includes('{') && queryNames.length === 0 && !op.requestBody) continue;
        const requests: { path: string; body?: unknown }[] = [];
        for (const value of ODD_VALUES) {
          const filled = path.replace(/\{\w+\}/g, encodeURIComponent(value));
          const query = queryNames.map((n) => `${n}=${encodeURIComponent(value)}`).join('&');
          requests.push({
            path: query ? `${filled}?${query}` : filled,
            body: op.requestBody ? { messages: [] } : undefined,
          });
        }
        const plainPath = path.replace(/\{\w+\}/g, 'does_not_exist');
        if (op.requestBody) for (const body of ODD_BODIES) requests.push({ path: plainPath, body });

        for (const r of requests) {
          const where = `${method.toUpperCase()} ${r.path.slice(0, 120)} ${JSON.stringify(r.body)?.slice(0, 80)}`;
          const res = await fetch(`${replica.url}${r.path}`, {
            method: method.toUpperCase(),
            headers: {
              Authorization: `Bearer ${token}`,
              'X-Agent-Id': tenant.agentId,
              ...(r.body === undefined ? {} : { 'Content-Type': 'application/json' }),
            },
            body: r.body === undefined ? undefined : JSON.stringify(r.body),
            signal: AbortSignal.timeout(15_000),
          });
          seen.set(`${res.status}`, (seen.get(`${res.status}`) ?? 0) + 1);
          expect(res.status, where).toBeGreaterThanOrEqual(400);
          expect(res.status, where).toBeLessThan(500);
          expect(Object.keys(op.responses), `${where}: status ${res.status} is not documented`).toContain(
            String(res.status),
          );
          const documented = op.responses[String(res.status)] as { content?: Record<string, unknown> };
          if (documented.content?.['text/html']) {
            // A page for a person's browser (the OAuth callback): HTML, and it leaks nothing either.
            expect(res.headers.get('content-type'), where).toMatch(/^text\/html/);
            expectNoLeak(await res.text(), where);
          } else await expectError(res, res.status, where);
        }
      }
    }
    // The battery reached past authentication into the checks of each operation.
    expect(seen.get('422')).toBeGreaterThan(10);
    expect(seen.get('404')).toBeGreaterThan(10);
  });
});

describe('an api whose port is taken', () => {
  it('exits non-zero instead of running without listening', async () => {
    // The shared api holds its port; a second api on it must fail its start (Express 5 hands the listen error to the callback).
    const port = new URL(apiUrl()).port;
    await expect(startApiProcess({ API_PORT: port })).rejects.toThrow(/exited with code [1-9]/);
  });
});
