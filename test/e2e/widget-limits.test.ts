/**
 * The widget gateway's rate limits, per widget key and per visitor, on an api process of
 * its own with low limits: 429 with Retry-After, readable by the allowed origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
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
    const get = (token: string) => widgetCall('GET', '/tasks/task_unknown/messages', { base: api.url, origin: SITE, token });
    expect((await get(a.visitor_token)).status).toBe(404);
    expect((await get(a.visitor_token)).status).toBe(404);
    await expect429(await get(a.visitor_token), /for each widget visitor/);
    const b = await widgetSession(tenant.key, SITE, undefined, api.url);
    expect((await get(b.visitor_token)).status).toBe(404);
  });

  it('limits each widget key across all its visitors', async () => {
    const tenant = await createWidgetTenant([SITE]);
    for (let i = 0; i < 5; i++) await widgetSession(tenant.key, SITE, undefined, api.url);
    await expect429(await widgetCall('POST', '/session', { base: api.url, origin: SITE, body: { widget_key: tenant.key } }), /for this widget key/);
    const other = await createWidgetTenant([SITE]);
    await widgetSession(other.key, SITE, undefined, api.url);
  });
});
