import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { AgentRunClient } from '@agent-run/client';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { eventually } from '../support/eventually.ts';
import { apiUrl, exchange } from '../support/http.ts';
import { startBackgroundRun, waitForPending } from '../support/runs.ts';
import { closeTestDb, createTenant, type Tenant } from '../support/tenant.ts';

/**
 * The api's edge, on an extra api process with small limits, a CORS origin and
 * debug logging, so each limit is reached in a few requests and every log line it
 * wrote can be searched for secrets.
 */
let api: ApiProcess;
let tenant: Tenant;
let token: string;
/** Each test's own client address (TRUST_PROXY is on), so failure counts of other tests never mix in. */
const address = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

beforeAll(async () => {
  api = await startApiProcess({
    LOG_LEVEL: 'debug',
    TRUST_PROXY: 'true',
    CORS_ORIGINS: 'https://console.example.test',
    RATE_LIMIT_EVENTS_PER_MINUTE: '3',
    RATE_LIMIT_MEMORIES_PER_MINUTE: '2',
    RATE_LIMIT_APPROVALS_PER_MINUTE: '2',
    EXCHANGE_FAILURES_PER_ADDRESS: '3',
    EXCHANGE_FAILURES_PER_KEY: '2',
    FLOW_FAILURES_PER_ADDRESS: '3',
    SSE_MAX_STREAMS_PER_USER: '2',
    SSE_MAX_STREAMS_PER_PROCESS: '3',
  });
  tenant = await createTenant();
  token = await exchange(tenant.keys.owner);
}, 120_000);

afterAll(async () => {
  await api?.close();
  await closeTestDb();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${api.url}${path}`, {
    headers: { Authorization: `Bearer ${token}`, 'X-Agent-Id': tenant.agentId, ...headers },
  });

const exchangeAt = (from: string, apiKey: string) =>
  fetch(`${api.url}/api/v1/auth/exchange/agent-token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': from },
    body: JSON.stringify({ api_key: apiKey }),
  });

describe('security headers and CORS', () => {
  it("every response carries helmet's headers, errors and the docs included", async () => {
    for (const res of [
      await fetch(`${api.url}/healthz`),
      await fetch(`${api.url}/api/tasks`),
      await fetch(`${api.url}/docs`),
      await get('/api/tasks'),
    ]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=/);
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('CORS is closed by default and open only to the configured origins', async () => {
    const preflight = (url: string, origin: string) =>
      fetch(`${url}/api/tasks`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'authorization',
        },
      });
    const shared = await preflight(apiUrl(), 'https://console.example.test');
    expect(shared.headers.get('access-control-allow-origin')).toBeNull(); // the default api: no CORS_ORIGINS
    const allowed = await preflight(api.url, 'https://console.example.test');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://console.example.test');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    const other = await preflight(api.url, 'https://evil.example.test');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const actual = await get('/api/tasks', { Origin: 'https://console.example.test' });
    expect(actual.headers.get('access-control-expose-headers')).toContain('X-Run-Id');
  });
});

describe('rate limits beyond runs and tasks', () => {
  it('event history, memory search and approvals each have their own budget: 429 with Retry-After', async () => {
    const { runId } = await startBackgroundRun(
      { token, agentId: tenant.agentId },
      { messages: [{ role: 'user', content: 'hello' }] },
    );
    const cases: [string, number][] = [
      [`/api/runs/${runId}/events`, 3],
      [`/api/agents/${tenant.agentId}/memories`, 2],
      ['/api/approvals', 2],
    ];
    for (const [path, budget] of cases) {
      for (let i = 0; i < budget; i++) expect((await get(path)).status, path).toBe(200);
      const refused = await get(path);
      expect(refused.status, path).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toEqual({ detail: expect.stringMatching(/Rate limit exceeded/) });
    }
  });

  it('failed key exchanges are limited per key: the third try of one wrong key is 429', async () => {
    const wrong = `ars_live_${randomBytes(24).toString('base64url')}`;
    for (let i = 0; i < 2; i++) expect((await exchangeAt(address(), wrong)).status).toBe(401);
    const refused = await exchangeAt(address(), wrong);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('failed key exchanges are limited per client address: then even a right key is 429 from there', async () => {
    const from = address();
    for (let i = 0; i < 3; i++)
      expect((await exchangeAt(from, `ars_live_${randomBytes(24).toString('base64url')}`)).status).toBe(401);
    expect((await exchangeAt(from, tenant.keys.member)).status).toBe(429);
    expect((await exchangeAt(address(), tenant.keys.member)).status).toBe(200); // another address is unaffected
  });
});

describe('caps on open SSE streams', () => {
  it('per user and per api process, answered 429 with Retry-After before anything starts; a closed stream frees its slot', async () => {
    const owner = { token, agentId: tenant.agentId };
    const ask = {
      messages: [{ role: 'user', content: '/tool request_user_input {"input_type":"text","prompt":"Name?"}' }],
    };
    const { taskId } = await startBackgroundRun(owner, ask);
    await waitForPending(owner, taskId);
    const open = async (who: string) => {
      const controller = new AbortController();
      const res = await fetch(`${api.url}/api/tasks/${taskId}/stream`, {
        headers: { Authorization: `Bearer ${who}`, 'X-Agent-Id': tenant.agentId },
        signal: controller.signal,
      });
      return { res, close: () => controller.abort() };
    };
    const first = await open(token);
    const second = await open(token);
    expect([first.res.status, second.res.status]).toEqual([200, 200]);
    const third = await open(token);
    expect(third.res.status).toBe(429);
    expect(third.res.headers.get('retry-after')).toBe('5');
    expect(await third.res.json()).toEqual({ detail: expect.stringMatching(/limit per user/) });

    // Another user takes the process's last slot; past it, the process refuses everyone.
    const member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
    const theirs = await startBackgroundRun(member, ask);
    await waitForPending(member, theirs.taskId);
    const openTheirs = async () => {
      const controller = new AbortController();
      const res = await fetch(`${api.url}/api/tasks/${theirs.taskId}/stream`, {
        headers: { Authorization: `Bearer ${member.token}`, 'X-Agent-Id': tenant.agentId },
        signal: controller.signal,
      });
      return { res, close: () => controller.abort() };
    };
    const memberFirst = await openTheirs();
    expect(memberFirst.res.status).toBe(200);
    const memberSecond = await openTheirs();
    expect(memberSecond.res.status).toBe(429);
    expect(await memberSecond.res.json()).toEqual({ detail: expect.stringMatching(/api process/) });
    memberFirst.close();
    first.close();
    const again = await eventually('a closed stream to free its slot', async () => {
      const attempt = await open(token);
      if (attempt.res.status !== 200) attempt.close();
      expect(attempt.res.status).toBe(200);
      return attempt;
    });
    again.close();
    second.close();
  });
});

describe('secrets never reach the logs', () => {
  it('no API key, JWT, cookie or Authorization value appears in any line the api wrote', async () => {
    const before = api.logs.length;
    await fetch(`${api.url}/api/tasks`, { headers: { Cookie: `auth_session=${token}`, 'X-Agent-Id': tenant.agentId } });
    await fetch(`${api.url}/api/tasks`, {
      headers: { Authorization: `Bearer ${token}x`, 'X-Agent-Id': tenant.agentId },
    });
    await exchangeAt(address(), tenant.keys.owner);
    await eventually('the three requests logged', () =>
      expect(api.logs.slice(before).filter((l) => l.msg === 'request completed').length).toBeGreaterThanOrEqual(3),
    );
    const text = api.logs.map((l) => JSON.stringify(l)).join('\n');
    expect(api.logs.length).toBeGreaterThan(10);
    // The requests that carried them were logged; a request line names no header (src/api/app.ts).
    const requestLines = api.logs.filter(
      (l) => l.msg === 'request completed' && (l.req as { url?: string }).url === '/api/tasks',
    );
    expect(requestLines.length).toBeGreaterThanOrEqual(2);
    for (const line of requestLines) expect(Object.keys(line.req as object)).not.toContain('headers');
    for (const secret of [token, tenant.keys.owner, tenant.keys.member, token.split('.')[2]!])
      expect(text).not.toContain(secret);
  });
});

describe('configuration', () => {
  const production = {
    NODE_ENV: 'production',
    DATA_DIR: '/tmp/unused',
    JWT_SECRET: 'x'.repeat(32),
    SECRETS_KEY: 's'.repeat(32),
    METRICS_TOKEN: 'm'.repeat(16),
  };

  it('refuses to start in production without JWT_SECRET, with a clear message', () => {
    expect(() => loadConfig({ ...production, JWT_SECRET: undefined })).toThrow(
      /JWT_SECRET: required when NODE_ENV=production/,
    );
    expect(() => loadConfig(production)).not.toThrow();
  });

  it('a production api refuses to start without METRICS_TOKEN; with it, /metrics without the bearer is 401', async () => {
    expect(() => loadConfig({ ...production, METRICS_TOKEN: '' })).toThrow(
      /METRICS_TOKEN: required when NODE_ENV=production/,
    );
    // The api process itself: exit 1 with the message, before it listens.
    const refused = spawnSync(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src', 'main', 'api.ts')], {
      env: {
        ...process.env,
        NODE_ENV: 'production',
        JWT_SECRET: 'x'.repeat(32),
        SECRETS_KEY: 's'.repeat(32),
        METRICS_TOKEN: '',
        API_PORT: '0',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(refused.status, refused.stdout).toBe(1);
    expect(refused.stderr).toMatch(/METRICS_TOKEN: required when NODE_ENV=production/);
    const metricsToken = randomBytes(24).toString('hex');
    const productionApi = await startApiProcess({ NODE_ENV: 'production', METRICS_TOKEN: metricsToken });
    try {
      const anonymous = await fetch(`${productionApi.url}/metrics`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.text()).not.toContain('ars_');
      expect(
        (await fetch(`${productionApi.url}/metrics`, { headers: { Authorization: `Bearer ${'m'.repeat(48)}` } }))
          .status,
      ).toBe(401);
      expect(
        (await fetch(`${productionApi.url}/metrics`, { headers: { Authorization: `Bearer ${metricsToken}` } })).status,
      ).toBe(200);
    } finally {
      await productionApi.close();
    }
  });
});

describe('inbound flows', () => {
  // Last in this file: its admin calls (through the shared api) count against the owner's approvals budget, which the tests above keep at 2.
  it('refused requests count per client address: after 3, even a signed one gets 429 with Retry-After; other addresses are not affected', async () => {
    const owner = new AgentRunClient({ baseUrl: apiUrl(), apiKey: tenant.keys.owner });
    const org = await owner.admin.org();
    const user = org.users.find((u) => u.id === tenant.users.owner)!.email;
    const applied = await owner.admin.apply({
      flows: [
        { name: 'edge-hook', kind: 'webhook', agent: org.document.agents[0]!.name, user, message: 'Event {{type}}' },
      ],
    });
    const flow = applied.org.flows.find((f) => f.name === 'edge-hook')!;
    const body = JSON.stringify({ type: 'ping' });
    const signed = (id: string, secret = flow.secret!) => {
      const at = new Date();
      return {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(id, at, body),
      };
    };
    const postFrom = (from: string, path: string, headers: Record<string, string>) =>
      fetch(`${api.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': from, ...headers },
        body,
      });
    const from = address();
    const wrongSecret = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
    expect((await postFrom(from, '/api/v1/flows/flw_unknown/webhook', signed('evt_1'))).status).toBe(404);
    expect((await postFrom(from, flow.path!, signed('evt_2', wrongSecret))).status).toBe(401);
    expect((await postFrom(from, flow.path!, signed('evt_3', wrongSecret))).status).toBe(401);
    const blocked = await postFrom(from, flow.path!, signed('evt_4'));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await blocked.json()) as { detail: string }).detail).toMatch(
      /^Too many refused flow requests from this address\. Retry after \d+ seconds\.$/,
    );
    expect((await postFrom(address(), flow.path!, signed('evt_5'))).status).toBe(202);
  });
});
