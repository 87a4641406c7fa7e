import { describe, expect, it } from 'vitest';
import { createTokenService, InvalidTokenError, type TokenClaims } from '../../src/auth/tokens.ts';

const jwt = { secret: 'x'.repeat(40), kid: 'k1', issuer: 'ars-test', audience: 'ars-test-api' };
const claims: TokenClaims = { userId: 'usr_1', orgId: 'org_1', role: 'member', apiKeyId: 'key_1' };

describe('token service: verified tokens are remembered until they expire', () => {
  it('answers a token it verified with the same claims, and a token it did not sign with 401', async () => {
    const tokens = createTokenService(jwt);
    const { token } = await tokens.issue(claims);
    const first = await tokens.verify(token);
    expect(first).toEqual(claims);
    expect(await tokens.verify(token)).toBe(first); // remembered, not verified again
    expect(Object.isFrozen(first)).toBe(true); // one request cannot change another's claims
    // The same header and payload under another signature: not the remembered token.
    const forged = `${token.slice(0, token.lastIndexOf('.') + 1)}${'A'.repeat(43)}`;
    await expect(tokens.verify(forged)).rejects.toThrow(InvalidTokenError);
    const other = await createTokenService({ ...jwt, secret: 'y'.repeat(40) }).issue(claims);
    await expect(tokens.verify(other.token)).rejects.toThrow('token is invalid');
  });

  it('refuses a remembered token once it has expired', async () => {
    const tokens = createTokenService(jwt);
    const { token, expiresAt } = await tokens.issue(claims, new Date(), 2); // expires in 1–2 s (whole seconds)
    const first = await tokens.verify(token);
    expect(await tokens.verify(token)).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 50)); // the memory ages on the real clock
    await expect(tokens.verify(token)).rejects.toThrow('token has expired');
  });

  it('remembers nothing for a renewal with grace (a widget visitor): an expired token still verifies there, not elsewhere', async () => {
    const tokens = createTokenService(jwt);
    const { token } = await tokens.issue(claims, new Date(Date.now() - 10_000), 5);
    expect(await tokens.verify(token, { expiredGraceSeconds: 60 })).toEqual(claims);
    await expect(tokens.verify(token)).rejects.toThrow('token has expired');
  });
});
