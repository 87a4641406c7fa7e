import { createDb } from '../../src/db/client.ts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.ts';
import {
  startApiProcess,
  createScratchDatabase,
  type ApiProcess,
  type ScratchDatabase,
} from '../support/api-process.ts';
import { eventually } from '../support/eventually.ts';
import { apiUrl, call, exchange, userMessage } from '../support/http.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

/** A request to any api replica, as a member acting through the tenant's agent. */
function send(
  base: string,
  method: string,
  path: string,
  token: string,
  agentId: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      'X-Agent-Id': agentId,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Counted like any run request, but refused by validation after the limiter: no workflow starts. */
const INVALID_RUN = { messages: [] };

function retryAfterOf(res: Response): number {
  const header = res.headers.get('retry-after') ?? '';
  expect(header).toMatch(/^\d+$/);
  return Number(header);
}

describe('rate limits with the default settings', () => {
  let tenant: Tenant;
  let member: string;
  let owner: string;

  beforeAll(async () => {
    tenant = await createTenant();
    [member, owner] = await Promise.all([exchange(tenant.keys.member), exchange(tenant.keys.owner)]);
  });

  it('allows 30 run requests a minute per user (refused ones count too), then answers 429 with Retry-After and a detail', async () => {
    const first = await call('POST', '/api/run', {
      token: member,
      agentId: tenant.agentId,
      body: { ...userMessage('hello'), stream: false },
    });
    expect(first.status).toBe(202);
    for (let i = 2; i <= 30; i++) {
      const res = await call('POST', '/api/run', { token: member, agentId: tenant.agentId, body: INVALID_RUN });
      expect([400, 422]).toContain(res.status);
    }
    const limited = await call('POST', '/api/run', {
      token: member,
      agentId: tenant.agentId,
      body: { ...userMessage('one too many'), stream: false },
    });
    expect(limited.status).toBe(429);
    const retryAfter = retryAfterOf(limited);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await limited.json()) as { detail: string };
    expect(Object.keys(body)).toEqual(['detail']);
    expect(body.detail).toMatch(/at most 30 run requests .* per minute/);
    expect(body.detail).toContain(`Retry after ${retryAfter} second`);
    // The limited request started nothing.
    const runs = await testDb().run.count({ where: { task: { orgId: tenant.orgId } } });
    expect(runs).toBe(1);
  });

  it('keeps its counters in an unlogged table: counting a request waits for no WAL flush', async () => {
    const [table] = await testDb().$queryRawUnsafe<{ relpersistence: string }[]>(
      `SELECT relpersistence::text AS relpersistence FROM pg_class WHERE relname = 'rate_limits'`,
    );
    expect(table?.relpersistence).toBe('u');
  });

  it('counts POST /api/run/async in the same budget, and each user of the org separately', async () => {
    const asyncLimited = await call('POST', '/api/run/async', {
      token: member,
      agentId: tenant.agentId,
      body: userMessage('async'),
    });
    expect(asyncLimited.status).toBe(429);
    const other = await call('POST', '/api/run', { token: owner, agentId: tenant.agentId, body: INVALID_RUN });
    expect([400, 422]).toContain(other.status);
  });

  it('keeps the tasks budget (100 a minute) apart from the runs budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 101; i++) {
      statuses.push((await call('GET', '/api/tasks?limit=1', { token: member, agentId: tenant.agentId })).status);
    }
    expect(statuses.slice(0, 100).every((s) => s === 200)).toBe(true);
    expect(statuses[100]).toBe(429);
    const limited = await call('GET', '/api/tasks/task_unknown', { token: member, agentId: tenant.agentId });
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { detail: string }).detail).toMatch(/at most 100 task requests .* per minute/);
    // Another user of the org still has a full budget.
    expect((await call('GET', '/api/tasks?limit=1', { token: owner, agentId: tenant.agentId })).status).toBe(200);
  });

  it('documents the 429 and its Retry-After header on every limited operation, and only there', async () => {
    const document = (await (await fetch(`${apiUrl()}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    const limited = Object.entries(document.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.responses['429'])
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(limited).toContain('POST /api/run');
    expect(limited).toContain('POST /api/run/async');
    for (const [path, ops] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const expected =
          path.startsWith('/api/tasks') ||
          path.startsWith('/api/approvals') ||
          path.startsWith('/api/v1/widget/') ||
          path.startsWith('/api/webhooks') ||
          path.startsWith('/api/admin/') ||
          path.startsWith('/api/v1/flows/') ||
          [
            '/api/run',
            '/api/run/async',
            '/api/ag-ui/run',
            '/api/runs/{run_id}/events',
            '/api/agents/{agent_id}/memories',
            '/api/v1/auth/exchange/agent-token',
          ].includes(path) ||
          // The console's sign-in exchanges a key as the exchange does (its sign-out counts nothing).
          (path === '/api/v1/auth/console/session' && method === 'post');
        expect(Boolean(op.responses['429']), `${method} ${path}`).toBe(expected);
        if (expected) expect(op.responses['429']!.headers).toHaveProperty('Retry-After');
      }
    }
  });
});

describe('rate limits across api replicas', () => {
  const WINDOW_SECONDS = 4;
  let replicas: ApiProcess[];
  let tenant: Tenant;
  let token: string;

  beforeAll(async () => {
    const env = { RATE_LIMIT_RUNS_PER_MINUTE: '4', RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) };
    replicas = await Promise.all([startApiProcess(env), startApiProcess(env)]);
    tenant = await createTenant();
    token = await exchange(tenant.keys.member);
  });
  afterAll(async () => Promise.all((replicas ?? []).map((r) => r.close())));

  it('shares one budget between two replicas on the same database, and allows requests again after the window', async () => {
    const [a, b] = replicas.map((r) => r.url) as [string, string];
    const run = (base: string) => send(base, 'POST', '/api/run', token, tenant.agentId, INVALID_RUN);
    const allowed = [await run(a), await run(b), await run(a), await run(b)];
    expect(allowed.map((r) => r.status).every((s) => s !== 429)).toBe(true);
    const [fromA, fromB] = [await run(a), await run(b)];
    expect([fromA.status, fromB.status]).toEqual([429, 429]);
    const retryAfter = retryAfterOf(fromB);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(((await fromA.json()) as { detail: string }).detail).toMatch(
      new RegExp(`at most 4 run requests .* per ${WINDOW_SECONDS} seconds`),
    );

    await new Promise((r) => setTimeout(r, retryAfter * 1000 + 200)); // the window itself must pass: no event ends it
    expect((await run(a)).status).not.toBe(429);
    expect((await run(b)).status).not.toBe(429);
  });
});

describe('when the rate-limit store fails', () => {
  let scratch: ScratchDatabase;
  let replica: ApiProcess;

  beforeAll(async () => {
    // A complete database whose counter table is gone: the limiter fails, nothing else does.
    scratch = await createScratchDatabase();
    await migrate(scratch.url);
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    await client.query('DROP TABLE rate_limits');
    await client.end();
    replica = await startApiProcess({ DATABASE_URL: scratch.url, RATE_LIMIT_RUNS_PER_MINUTE: '1' });
  });
  afterAll(async () => {
    await replica?.close();
    await scratch?.drop();
  });

  it('lets requests through (fail open) and logs a warning for each', async () => {
    // The tenant lives in the scratch database (roles are read from it on every request); the agent is unknown, so each request ends in 404.
    const scratchDb = createDb(scratch.url, 2);
    const tenant = await createTenant({}, scratchDb);
    await scratchDb.$disconnect();
    const exchanged = await fetch(`${replica.url}/api/v1/auth/exchange/agent-token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ api_key: tenant.keys.member }),
    });
    expect(exchanged.status).toBe(200);
    const token = ((await exchanged.json()) as { access_token: string }).access_token;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await send(replica.url, 'POST', '/api/run', token, 'agent_unknown', INVALID_RUN)).status);
    expect(statuses).toEqual([404, 404, 404]);
    const warnings = () => replica.logs.filter((l) => l.msg === 'rate limit store failed; request allowed (fail open)');
    await eventually('a warning for each request', () => expect(warnings().length).toBe(3));
    expect(warnings()[0]).toMatchObject({ level: 40, key: `org:${tenant.orgId}:user:${tenant.users.member}:runs` });
  });
});
