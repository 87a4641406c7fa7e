import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { call, exchange, userMessage } from '../support/http.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

let tenant: Tenant;
let other: Tenant;
let ownerToken: string;

beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(), createTenant()]);
  ownerToken = await exchange(tenant.keys.owner);
});

async function expectDetail(res: Response, status: number, pattern?: RegExp) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { detail: unknown };
  expect(typeof body.detail).toBe('string');
  if (pattern) expect(body.detail).toMatch(pattern);
}

describe('POST /api/v1/auth/exchange/agent-token', () => {
  it('turns an API key into a one-hour HS256 JWT with iss, aud and kid', async () => {
    const res = await call('POST', '/api/v1/auth/exchange/agent-token', { body: { api_key: tenant.keys.owner } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      org_id: tenant.orgId,
      user_id: tenant.users.owner,
      role: 'owner',
    });
    const header = decodeProtectedHeader(body.access_token as string);
    expect(header).toMatchObject({ alg: 'HS256', kid: 'k1' });
    const claims = decodeJwt(body.access_token as string);
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims).toMatchObject({
      iss: 'agent-run-service',
      aud: 'agent-run-service/api',
      sub: tenant.users.owner,
      org_id: tenant.orgId,
    });
    expect(new Date(body.expires_at as string).getTime()).toBe(claims.exp! * 1000);
  });

  it('refuses unknown, malformed and revoked keys with 401', async () => {
    await expectDetail(
      await call('POST', '/api/v1/auth/exchange/agent-token', {
        body: { api_key: 'ars_live_notarealkeynotarealkey00' },
      }),
      401,
    );
    await expectDetail(await call('POST', '/api/v1/auth/exchange/agent-token', { body: { api_key: 'hello' } }), 401);
    const fresh = await createTenant();
    await testDb().apiKey.updateMany({ where: { userId: fresh.users.owner }, data: { revokedAt: new Date() } });
    await expectDetail(
      await call('POST', '/api/v1/auth/exchange/agent-token', { body: { api_key: fresh.keys.owner } }),
      401,
    );
  });

  it('answers 422 with loc/msg/type when the body has no api_key', async () => {
    const res = await call('POST', '/api/v1/auth/exchange/agent-token', { body: {} });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
    expect(body.detail[0]).toMatchObject({
      loc: ['body', 'api_key'],
      type: expect.any(String),
      msg: expect.any(String),
    });
  });
});

describe('bearer tokens on agent endpoints', () => {
  const run = (token: string | undefined, agentId = tenant.agentId, headers: Record<string, string> = {}) =>
    call('POST', '/api/run', { token, agentId, body: userMessage('hi'), headers });

  it('401 without a token, with a malformed header, garbage, a tampered, expired, foreign-key or alg=none token', async () => {
    await expectDetail(await run(undefined), 401, /Missing bearer token/);
    await expectDetail(
      await call('POST', '/api/run', {
        headers: { Authorization: 'Token abc' },
        agentId: tenant.agentId,
        body: userMessage('hi'),
      }),
      401,
    );
    await expectDetail(await run('not.a.jwt'), 401);

    const [h, p, s] = ownerToken.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, role: 'owner', org_id: other.orgId })).toString('base64url')}.${s}`;
    await expectDetail(await run(tampered), 401);

    const secret = new TextEncoder().encode(inject('jwtSecret'));
    const sign = (exp: number, key = secret, kid = 'k1') =>
      new SignJWT({ org_id: tenant.orgId, role: 'owner', key_id: claims.key_id })
        .setProtectedHeader({ alg: 'HS256', kid })
        .setSubject(tenant.users.owner)
        .setIssuer('agent-run-service')
        .setAudience('agent-run-service/api')
        .setIssuedAt(exp - 3600)
        .setExpirationTime(exp)
        .sign(key);
    const now = Math.floor(Date.now() / 1000);
    await expectDetail(await run(await sign(now - 10)), 401, /expired/);
    await expectDetail(
      await run(await sign(now + 600, new TextEncoder().encode('another-secret-another-secret-another'))),
      401,
    );
    await expectDetail(await run(await sign(now + 600, secret, 'k2')), 401);
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`;
    await expectDetail(await run(none), 401);
    // A correctly signed token passes auth (and then fails on the agent, which proves auth ran first).
    await expectDetail(await run(await sign(now + 600), other.agentId), 403);
  });

  it('403 for an agent of another org or one the member was not granted; 404 for an unknown agent; 422 without X-Agent-Id', async () => {
    await expectDetail(await run(ownerToken, other.agentId), 403, /organization/);
    const memberToken = await exchange(tenant.keys.member);
    await expectDetail(await run(memberToken, tenant.privateAgentId), 403, /not been granted/);
    await expectDetail(await run(await exchange(tenant.keys.outsider), tenant.agentId), 403);
    await expectDetail(await run(ownerToken, 'agt_doesnotexist'), 404);
    const res = await call('POST', '/api/run', { token: ownerToken, body: userMessage('hi') });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual(['header', 'x-agent-id']);
  });

  it('changes nothing when a request is refused', async () => {
    const before = await testDb().task.count({ where: { orgId: tenant.orgId } });
    await run(undefined);
    await run(ownerToken, other.agentId);
    expect(await testDb().task.count({ where: { orgId: tenant.orgId } })).toBe(before);
  });
});
