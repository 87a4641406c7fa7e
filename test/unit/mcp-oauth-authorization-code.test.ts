import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationCodeTokens, ConnectNeeded } from '../../src/activities/mcp/authorization-code-tokens.ts';
import { connectToolServer } from '../../src/activities/mcp/connect.ts';
import { beginAuthorization, completeAuthorization, ConnectRefused } from '../../src/mcp-oauth/connect-flow.ts';
import type { StoredGrant } from '../../src/mcp-oauth/stored-grant.ts';
import type { AuthorizationCodeOAuth } from '../../src/shared/tool-server-types.ts';
import { startOAuthCodeServer, type OAuthCodeServer } from '../support/oauth-code-server.ts';

const REDIRECT = 'http://localhost:8000/api/oauth/callback';
const oauth: AuthorizationCodeOAuth = { grant: 'authorization_code', refreshToken: { secret: 'TICKETS_OAUTH' } };
let server: OAuthCodeServer;

beforeAll(async () => {
  server = await startOAuthCodeServer({ accessTokenSeconds: 600 });
});
afterAll(() => server.close());

const common = { headers: {}, fetch: globalThis.fetch, signal: AbortSignal.timeout(20_000), timeoutMs: 5000 };

/** Connect as the api does it, the user consenting at once: the grant the org secret would hold. */
async function connect(client = {}): Promise<StoredGrant> {
  const state = `state-${Math.random()}`;
  const { authorizationUrl, pending } = await beginAuthorization({
    serverUrl: server.url,
    client,
    redirectUrl: REDIRECT,
    state,
    ...common,
  });
  const back = new URL((await fetch(authorizationUrl, { redirect: 'manual' })).headers.get('location')!);
  expect(back.searchParams.get('state')).toBe(state);
  return completeAuthorization(pending, back.searchParams.get('code')!, client, globalThis.fetch);
}

async function whoami(tokens: AuthorizationCodeTokens, grant: StoredGrant, org = 'org-1') {
  const session = await connectToolServer(server.url, {
    ...common,
    authProvider: tokens.provider(org, server.url, oauth, grant, undefined),
  });
  try {
    const result = (await session.client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
    return (result.content[0] as { text: string }).text;
  } finally {
    await session.close();
  }
}

describe('the authorization-code grant (Connect) and the worker refreshing it', () => {
  it('uses the stored token, refreshes it before it expires, writes the rotated grant back, and asks for Connect when it is refused', async () => {
    const grant = await connect();
    expect(server.registered).toHaveLength(1);
    expect(grant.client?.client_id).toBe(server.registered[0]!.client_id);
    expect(grant.discovery.authorizationServerUrl).toBe(server.issuer);
    expect(grant.tokens.refresh_token).toMatch(/^rt-/);

    let clock = Date.now();
    const written: StoredGrant[] = [];
    const tokens = new AuthorizationCodeTokens(
      globalThis.fetch,
      (_org, name, next) => (expect(name).toBe('TICKETS_OAUTH'), written.push(next), Promise.resolve()),
      () => clock,
    );
    expect(await whoami(tokens, grant)).toMatch(/^alice via /);
    expect(server.refreshes).toBe(0);

    // Nine minutes later: within a minute of expiry, so the next call refreshes first (and the server rotates).
    clock += 9 * 60_000;
    expect(await whoami(tokens, grant)).toMatch(/^alice via /);
    expect(server.refreshes).toBe(1);
    expect(written).toHaveLength(1);
    expect(written[0]!.tokens.refresh_token).not.toBe(grant.tokens.refresh_token);
    expect(server.mcpAuthorizations.at(-1)).toBe(`Bearer ${written[0]!.tokens.access_token}`);
    // The secret now holds the written grant: read again, it is the one this worker follows (no second refresh).
    expect(await whoami(tokens, written[0]!)).toMatch(/^alice via /);
    expect(server.refreshes).toBe(1);
    // A read of the secret from before the write-back (a concurrent call) is not followed back to the used-up token.
    expect(await whoami(tokens, grant)).toMatch(/^alice via /);
    expect(server.refreshes).toBe(1);

    // Another worker with the old grant (its refresh token used up by the rotation): refused, so Connect again.
    const other = new AuthorizationCodeTokens(
      globalThis.fetch,
      () => Promise.resolve(),
      () => clock + 60_000,
    );
    await expect(whoami(other, grant, 'org-1')).rejects.toThrow(ConnectNeeded);
  });

  it('pins the authorization server: a configured issuer it does not name is refused before any registration', async () => {
    const before = server.registered.length;
    await expect(connect({ issuer: 'https://auth.example.com' })).rejects.toThrow(ConnectRefused);
    expect(server.registered).toHaveLength(before);
  });

  it('refuses a grant made for another server', async () => {
    const grant = await connect();
    const tokens = new AuthorizationCodeTokens(globalThis.fetch, () => Promise.resolve());
    expect(() => tokens.provider('org-1', `${server.url}/other`, oauth, grant, undefined)).toThrow(ConnectNeeded);
  });
});
