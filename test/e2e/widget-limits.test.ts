/**
 * The widget gateway's rate limits, per widget key and per visitor, on an api process of
 * its own with low limits: 429 with Retry-After, readable by the allowed origin.
 */
import { eventually } from '../support/eventually.ts';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyFile, parseApplyFile } from '../../src/admin/apply.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { userMessage } from '../support/http.ts';
import { testDb } from '../support/tenant.ts';
import { createWidgetTenant, widgetCall, widgetSession } from '../support/widget.ts';

const SITE = 'http://shop.example.test';

let api: ApiProcess;

beforeAll(async () => {
  api = await startApiProcess({ WIDGET_RATE_LIMIT_PER_KEY: '5', WIDGET_RATE_LIMIT_PER_VISITOR: '3' });
});
afterAll(async () => api?.close());

async function expect429(res: Response, detail: RegExp): Promise<void> {
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.headers.get('access-control-allow-origin')).toBe(SITE);
  expect(((await res.json()) as { detail: string }).detail).toMatch(detail);
}

describe('widget rate limits', () => {
  it('limits each visitor (the session counts too), not other visitors of the key', async () => {
    const tenant = await createWidgetTenant([SITE]);
    const a = await widgetSession(tenant.key, SITE, undefined, api.url);
    const get = (token: string) =>
      widgetCall('GET', '/tasks/task_unknown/messages', { base: api.url, origin: SITE, token });
    expect((await get(a.visitor_token)).status).toBe(404);
    expect((await get(a.visitor_token)).status).toBe(404);
    await expect429(await get(a.visitor_token), /for each widget visitor/);
    const b = await widgetSession(tenant.key, SITE, undefined, api.url);
    expect((await get(b.visitor_token)).status).toBe(404);
  });

  it('limits each widget key across all its visitors', async () => {
    const tenant = await createWidgetTenant([SITE]);
    for (let i = 0; i < 5; i++) await widgetSession(tenant.key, SITE, undefined, api.url);
    await expect429(
      await widgetCall('POST', '/session', { base: api.url, origin: SITE, body: { widget_key: tenant.key } }),
      /for this widget key/,
    );
    const other = await createWidgetTenant([SITE]);
    await widgetSession(other.key, SITE, undefined, api.url);
  });
});

/**
 * Budgets that hold across visitors (a client makes visitors at will): per client address, runs and
 * open streams per widget key; and the events one inbound flow takes. An api process of their own.
 */
describe('budgets across visitors, and per flow', () => {
  let budgets: ApiProcess;
  beforeAll(async () => {
    budgets = await startApiProcess({
      WIDGET_RATE_LIMIT_PER_ADDRESS: '40',
      WIDGET_RUNS_PER_KEY: '2',
      WIDGET_MAX_STREAMS_PER_KEY: '1',
      FLOW_EVENTS_PER_MINUTE: '2',
      // Counters live in the shared database: the refusals other test files' flows earned from this address are not this test's.
      FLOW_FAILURES_PER_ADDRESS: '100000',
    });
  });
  afterAll(async () => budgets?.close());

  it('runs per widget key hold across new visitors; one stream per key is open at a time', async () => {
    const tenant = await createWidgetTenant([SITE]);
    const start = async (content = 'hi') => {
      const { visitor_token: token } = await widgetSession(tenant.key, SITE, undefined, budgets.url);
      return {
        token,
        res: await widgetCall('POST', '/run', {
          base: budgets.url,
          origin: SITE,
          token,
          body: { ...userMessage(content), stream: false },
        }),
      };
    };
    // The first run waits for an answer, so its task's stream stays open (a finished run's stream ends at once).
    const first = await start(
      `Please help.\n/tool request_user_input ${JSON.stringify({ input_type: 'text', prompt: 'Name?' })}`,
    );
    expect(first.res.status).toBe(202);
    expect((await start()).res.status).toBe(202);
    await expect429((await start()).res, /at most 2 widget runs per minute for this widget key/);

    const { task_id: taskId } = (await first.res.json()) as { task_id: string };
    await eventually('the first run to wait for its answer', async () => {
      const pending = await widgetCall('GET', `/tasks/${taskId}/pending-input`, {
        base: budgets.url,
        origin: SITE,
        token: first.token,
      });
      expect(((await pending.json()) as { pending: boolean }).pending).toBe(true);
    });
    const open = new AbortController();
    const stream = await widgetCall('GET', `/tasks/${taskId}/stream`, {
      base: budgets.url,
      origin: SITE,
      token: first.token,
      signal: open.signal,
    });
    expect(stream.status).toBe(200);
    const second = await widgetCall('GET', `/tasks/${taskId}/stream`, {
      base: budgets.url,
      origin: SITE,
      token: first.token,
    });
    await expect429(second, /widget key has 1 streams open/);
    open.abort();
  });

  it('limits one client address across widget keys and visitors', async () => {
    const [a, b] = await Promise.all([createWidgetTenant([SITE]), createWidgetTenant([SITE])]);
    let refused: Response | undefined;
    for (let i = 0; i < 50 && !refused; i++) {
      const res = await widgetCall('POST', '/session', {
        base: budgets.url,
        origin: SITE,
        body: { widget_key: (i % 2 ? a : b).key },
      });
      if (res.status === 429) refused = res;
      else expect(res.status).toBe(200);
    }
    expect(refused, 'the address budget was never spent').toBeDefined();
    await expect429(refused!, /from one client address/);
  });

  it('an inbound flow takes at most FLOW_EVENTS_PER_MINUTE verified events', async () => {
    const tenant = await createWidgetTenant([SITE]);
    const applied = await applyFile(
      testDb(),
      parseApplyFile({
        orgs: [
          {
            name: tenant.orgName,
            flows: [
              {
                name: 'hook',
                kind: 'webhook',
                agent: 'support',
                user: `owner-${tenant.orgName.slice(7)}@example.test`,
                message: 'Event {{n}}',
              },
            ],
          },
        ],
      }),
    );
    const flow = applied.orgs[0]!.flows[0]!;
    const send = (n: number) => {
      const body = JSON.stringify({ n });
      const id = `evt_budget_${n}`;
      const at = new Date();
      const headers = {
        'Content-Type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(flow.secret!).sign(id, at, body),
      };
      return fetch(`${budgets.url}${flow.path!}`, { method: 'POST', headers, body });
    };
    expect((await send(1)).status).toBe(202);
    expect((await send(2)).status).toBe(202);
    const third = await send(3);
    expect(third.status).toBe(429);
    expect(((await third.json()) as { detail: string }).detail).toMatch(/events per minute for this flow/);
  });
});
