import { generateKeyPair, exportSPKI, SignJWT, decodeJwt, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it, inject } from 'vitest';
import { call, exchange } from '../support/http.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';

/**
 * Forged and broken tokens on a protected route: every one is 401 in the spec's error
 * format, while the same claims signed properly are 200 (so the test can fail).
 */
const encoder = new TextEncoder();
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

let tenant: Tenant;
let claims: JWTPayload;
const secret = () => encoder.encode(inject('jwtSecret'));

beforeAll(async () => {
  tenant = await createTenant();
  claims = decodeJwt(await exchange(tenant.keys.owner));
});

/** The exchanged token's claims, changed by `patch`, signed HS256 with `key` (the service's secret unless given). */
function sign(
  patch: JWTPayload = {},
  key: Uint8Array = secret(),
  header: Record<string, unknown> = {},
): Promise<string> {
  const iat = now() - 10;
  return new SignJWT({ ...claims, iat, exp: iat + 3600, ...patch })
    .setProtectedHeader({ alg: 'HS256', kid: 'k1', typ: 'JWT', ...header })
    .sign(key);
}

const listTasks = (token: string) => call('GET', '/api/tasks', { token, agentId: tenant.agentId });

async function expect401(token: string, what: string) {
  const res = await listTasks(token);
  expect(res.status, what).toBe(401);
  expect(res.headers.get('www-authenticate'), what).toMatch(/^Bearer/);
  const body = (await res.json()) as { detail: unknown };
  expect(typeof body.detail, what).toBe('string');
  expect(JSON.stringify(body), what).not.toMatch(/tasks|task_/);
}

describe('forged and broken JWTs', () => {
  it('accepts the exchanged claims when signed with the service key (the control)', async () => {
    expect((await listTasks(await sign())).status).toBe(200);
  });

  it('refuses alg none, with and without a signature', async () => {
    const header = b64url({ alg: 'none', typ: 'JWT', kid: 'k1' });
    const payload = b64url({ ...claims, iat: now(), exp: now() + 3600 });
    await expect401(`${header}.${payload}.`, 'alg none, empty signature');
    await expect401(`${header}.${payload}`, 'alg none, two segments');
    const valid = (await sign()).split('.');
    await expect401(`${header}.${valid[1]}.${valid[2]}`, 'alg none header on a valid signature');
  });

  it('refuses HS/RS confusion and RS256 tokens', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    const publicPem = await exportSPKI(publicKey);
    await expect401(await sign({}, encoder.encode(publicPem)), 'HS256 signed with an RSA public key as the secret');
    const iat = now();
    const rs256 = await new SignJWT({ ...claims, iat, exp: iat + 3600 })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'JWT' })
      .sign(privateKey);
    await expect401(rs256, 'RS256');
  });

  it('refuses expired, not-yet-valid and wrong-issuer/audience tokens', async () => {
    await expect401(await sign({ iat: now() - 7200, exp: now() - 60 }), 'expired');
    await expect401(await sign({ nbf: now() + 600 }), 'nbf in the future');
    await expect401(await sign({ iss: 'someone-else' }), 'wrong issuer');
    await expect401(await sign({ aud: 'someone-else/api' }), 'wrong audience');
    await expect401(await sign({ iss: undefined }), 'no issuer');
    await expect401(await sign({ exp: undefined }), 'no expiry');
  });

  it('refuses a tampered payload and a token signed with another key', async () => {
    const [header, , signature] = (await sign()).split('.');
    const otherOrg = (await createTenant()).orgId;
    await expect401(
      `${header}.${b64url({ ...claims, org_id: otherOrg, iat: now(), exp: now() + 3600 })}.${signature}`,
      'org claim changed, signature kept',
    );
    await expect401(
      `${header}.${b64url({ ...claims, role: 'owner', sub: 'usr_x', iat: now(), exp: now() + 3600 })}.${signature}`,
      'subject changed',
    );
    await expect401(await sign({}, crypto.getRandomValues(new Uint8Array(32))), 'another HS256 key');
    await expect401(await sign({}, secret(), { kid: 'k2' }), 'unknown kid');
  });
});
