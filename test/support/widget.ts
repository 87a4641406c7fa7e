import { seedOrg, seedTag } from '../../src/admin/seed-org.ts';
import { apiUrl } from './http.ts';
import { testDb } from './tenant.ts';

export interface WidgetTenant {
  orgName: string;
  orgId: string;
  /** The customer-facing agent the key is bound to. */
  agentId: string;
  key: string;
  keyId: string;
  /** An owner's API key of the same org (for checks through the normal api). */
  ownerKey: string;
  origins: string[];
}

/** A fresh org with a customer-facing agent "support", one widget key "site" for `origins`, and an owner. */
export async function createWidgetTenant(origins: string[]): Promise<WidgetTenant> {
  const tag = seedTag();
  const orgName = `widget-${tag}`;
  const owner = `owner-${tag}@example.test`;
  const org = await seedOrg(testDb(), {
    name: orgName,
    credits: 100_000,
    users: [{ email: owner, role: 'owner' }],
    agents: [{ name: 'support', customer_facing: true }],
    keys: [{ user: owner, name: 'owner' }],
    widget_keys: [{ name: 'site', agent: 'support', origins }],
  });
  const widgetKey = org.widget_keys[0]!;
  return {
    orgName,
    orgId: org.id,
    agentId: org.agents['support']!,
    key: widgetKey.key!,
    keyId: widgetKey.id,
    ownerKey: org.keyOf(owner),
    origins,
  };
}

/** A widget gateway request as a browser on `origin` sends it. */
export function widgetCall(
  method: string,
  path: string,
  opts: {
    origin?: string;
    token?: string;
    body?: unknown;
    headers?: Record<string, string>;
    base?: string;
    signal?: AbortSignal;
  } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.origin) headers.Origin = opts.origin;
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${opts.base ?? apiUrl()}/api/v1/widget${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: opts.signal,
  });
}

export interface WidgetSession {
  visitor_token: string;
  expires_at: string;
  visitor_id: string;
  agent: { id: string; name: string };
}

/** POST /api/v1/widget/session that must succeed. */
export async function widgetSession(
  key: string,
  origin: string,
  visitorToken?: string,
  base?: string,
): Promise<WidgetSession> {
  const res = await widgetCall('POST', '/session', {
    origin,
    base,
    body: { widget_key: key, ...(visitorToken ? { visitor_token: visitorToken } : {}) },
  });
  if (res.status !== 200) throw new Error(`widget session failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as WidgetSession;
}
