import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/auth/api-keys.ts';
import { apiUrl, call } from '../support/http.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

/** The web console's sign-in over HTTP: the key once, then an HttpOnly session cookie that renews tokens. */
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant();
});

const SESSION = '/api/v1/auth/console/session';
const REFRESH = '/api/v1/auth/console/refresh';

async function signIn(apiKey: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${apiUrl()}${SESSION}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ api_key: apiKey }),
  });
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { res, setCookie, cookie: setCookie.split(';')[0]! };
}

const refresh = (cookie: string, headers: Record<string, string> = {}) =>
  fetch(`${apiUrl()}${REFRESH}`, { method: 'POST', headers: { Cookie: cookie, ...headers } });

describe('console session', () => {
  it('signs in with the key once: a token like the exchange’s, and a session cookie no script can read, sent only to the sign-in paths', async () => {
    const { res, setCookie, cookie } = await signIn(tenant.keys.member);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      org_id: tenant.orgId,
      user_id: tenant.users.member,
      role: 'member',
    });
    expect(setCookie).toMatch(/^ars_console_session=[\w-]+\.[\w-]+\.[\w-]+;/);
    expect(setCookie).toMatch(/; HttpOnly/i);
    expect(setCookie).toMatch(/; SameSite=Strict/i);
    expect(setCookie).toMatch(/; Path=\/api\/v1\/auth\/console(;|$)/);
    expect(setCookie).toMatch(/; Max-Age=43200/);
    expect(setCookie).not.toContain(tenant.keys.member);
    // The session is no bearer token, and a bearer token is no session.
    const sessionToken = cookie.split('=')[1]!;
    expect(decodeJwt(sessionToken)).not.toHaveProperty('role');
    expect((await call('GET', '/api/approvals', { token: sessionToken })).status).toBe(401);
    const renewed = await refresh(cookie);
    expect(renewed.status).toBe(200);
    const { access_token: token } = (await renewed.json()) as { access_token: string };
    expect((await call('GET', '/api/tasks', { token, agentId: tenant.agentId })).status).toBe(200);
    expect((await refresh(`ars_console_session=${token}`)).status).toBe(401);
  });

  it('renews with the role as it is now; another origin’s browser request is refused; sign-out clears the cookie', async () => {
    const { cookie } = await signIn(tenant.keys.owner);
    await testDb().user.update({ where: { id: tenant.users.owner }, data: { role: 'admin' } });
    try {
      const renewed = await refresh(cookie, { 'Sec-Fetch-Site': 'same-origin' });
      expect(await renewed.json()).toMatchObject({ user_id: tenant.users.owner, role: 'admin' });
    } finally {
      await testDb().user.update({ where: { id: tenant.users.owner }, data: { role: 'owner' } });
    }
    expect((await refresh(cookie, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await refresh(cookie, { 'Sec-Fetch-Site': 'same-site' })).status).toBe(403);
    expect((await signIn(tenant.keys.owner, { 'Sec-Fetch-Site': 'cross-site' })).res.status).toBe(403);
    const out = await fetch(`${apiUrl()}${SESSION}`, { method: 'DELETE', headers: { Cookie: cookie } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^ars_console_session=;.*Expires=Thu, 01 Jan 1970/);
  });

  it('a wrong key is 401; no cookie is 401; a revoked key ends its sessions at the next renewal', async () => {
    const wrong = await signIn('ars_live_notarealkeynotarealkey00');
    expect(wrong.res.status).toBe(401);
    expect(wrong.setCookie).toBe('');
    expect((await fetch(`${apiUrl()}${REFRESH}`, { method: 'POST' })).status).toBe(401);
    const fresh = await createTenant();
    const { cookie } = await signIn(fresh.keys.member);
    expect((await refresh(cookie)).status).toBe(200);
    await testDb().apiKey.updateMany({
      where: { hash: hashApiKey(fresh.keys.member) },
      data: { revokedAt: new Date() },
    });
    const refused = await refresh(cookie);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/revoked/);
    expect(refused.headers.get('set-cookie')).toMatch(/^ars_console_session=;/);
  });
});
