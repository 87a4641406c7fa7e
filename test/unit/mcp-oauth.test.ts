import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectToolServer } from '../../src/activities/mcp/connect.ts';
import { describeServerFailure, isTransportFailure } from '../../src/activities/mcp/failures.ts';
import { ClientCredentialsTokens } from '../../src/activities/mcp/oauth.ts';
import { guardedFetch, type UrlFetch } from '../../src/outbound/guarded-fetch.ts';
import type { ClientCredentialsOAuth } from '../../src/shared/tool-server-types.ts';
import { startOAuthMcpServer, type OAuthMcpServer } from '../support/oauth-mcp-server.ts';

const CLIENT_SECRET = 'cc-secret-for-unit-test';
let server: OAuthMcpServer;
let clock = Date.now();
const oauth: ClientCredentialsOAuth = {
  grant: 'client_credentials',
  clientId: 'agent-run',
  clientSecret: { secret: 'SECURED_CLIENT_SECRET' },
  scope: 'tools',
};

beforeAll(async () => {
  server = await startOAuthMcpServer({ clientId: oauth.clientId, clientSecret: CLIENT_SECRET, expiresIn: 600 });
});
afterAll(() => server.close());

/** Connects with the client credentials (and a plain header), calls whoami, ends the session. */
async function whoami(tokens: ClientCredentialsTokens, fetch: UrlFetch = globalThis.fetch, secret = CLIENT_SECRET) {
  const authProvider = tokens.provider('org-1', server.url, oauth, secret);
  const session = await connectToolServer(server.url, {
    headers: { 'X-Team': 'backend' },
    fetch,
    signal: AbortSignal.timeout(10_000),
    timeoutMs: 5000,
    authProvider,
  });
  try {
    const result = (await session.client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
    return (result.content[0] as { text: string }).text;
  } finally {
    await session.close();
  }
}

describe('OAuth client credentials for a tool server (the MCP authorization spec, through the SDK)', () => {
  const tokens = new ClientCredentialsTokens(globalThis.fetch, () => clock);

  it("discovers the authorization server from the server's 401, gets a token with the client secret, and keeps it for the next session", async () => {
    expect(await whoami(tokens)).toBe('client agent-run (tools)');
    // The first request went without a token; the 401 named the protected resource metadata, which named the issuer.
    expect(server.mcpRequests[0]!.authorization).toBeUndefined();
    expect(server.metadataRequests).toEqual([
      `${new URL(server.url).origin}/.well-known/oauth-protected-resource/mcp`,
      `${server.issuer}/.well-known/oauth-authorization-server`,
    ]);
    expect(server.tokenRequests).toHaveLength(1);
    const [request] = server.tokenRequests;
    expect(request!.authorization).toBe(`Basic ${Buffer.from(`agent-run:${CLIENT_SECRET}`).toString('base64')}`);
    expect(request!.body).toEqual({ grant_type: 'client_credentials', scope: 'tools', resource: server.url });
    // The settings' headers reach the MCP server, never the authorization server.
    expect(request!.headers['x-team']).toBeUndefined();
    expect(server.mcpRequests.every((r) => r.team === 'backend')).toBe(true);
    expect(server.mcpRequests.at(-1)!.authorization).toBe(`Bearer ${server.issued[0]}`);

    // Another session on this worker: the kept token, no discovery, no 401.
    const before = server.mcpRequests.length;
    expect(await whoami(tokens)).toBe('client agent-run (tools)');
    expect(server.tokenRequests).toHaveLength(1);
    expect(server.mcpRequests.slice(before).every((r) => r.authorization === `Bearer ${server.issued[0]}`)).toBe(true);
  });

  it('replaces the token shortly before it expires, straight at the token endpoint; keeps the old one while that fails and it is valid', async () => {
    clock += 550_000; // within a minute of the 600 s lifetime
    const before = server.mcpRequests.length;
    expect(await whoami(tokens)).toBe('client agent-run (tools)');
    expect(server.tokenRequests).toHaveLength(2);
    expect(server.metadataRequests).toHaveLength(2); // the discovery is kept too
    expect(server.mcpRequests.slice(before).every((r) => r.authorization === `Bearer ${server.issued[1]}`)).toBe(true);

    server.failTokens = true;
    try {
      clock += 550_000;
      expect(await whoami(tokens)).toBe('client agent-run (tools)');
      expect(server.tokenRequests).toHaveLength(3);
      expect(server.mcpRequests.at(-1)!.authorization).toBe(`Bearer ${server.issued[1]}`);
      // Expired and not replaceable: the authorization server's trouble, retried like a transport failure.
      clock += 60_000;
      const err = await whoami(tokens).catch((e: unknown) => e);
      expect(isTransportFailure(err), String(err)).toBe(true);
      expect(describeServerFailure(err)).toMatch(/^OAuth temporarily_unavailable/);
    } finally {
      server.failTokens = false;
    }
  });

  it('reports a refused client secret without retrying, and never its value', async () => {
    const err = await whoami(new ClientCredentialsTokens(globalThis.fetch), globalThis.fetch, 'wrong-secret').catch(
      (e: unknown) => e,
    );
    expect(isTransportFailure(err)).toBe(false);
    expect(describeServerFailure(err)).toBe('OAuth invalid_client: unknown client or secret');
    expect(describeServerFailure(err)).not.toContain('wrong-secret');
  });

  it('sends discovery and token requests through the outbound guard', async () => {
    // The MCP server may be reached; its authorization server, on a private address, is refused like any target.
    const asOrigin = server.issuer;
    const guarded = guardedFetch(false);
    const fetch: UrlFetch = (url, init) =>
      String(url).startsWith(asOrigin) ? guarded(url, init) : globalThis.fetch(url, init);
    const requests = server.tokenRequests.length;
    const err = await whoami(new ClientCredentialsTokens(fetch), fetch).catch((e: unknown) => e);
    expect(describeServerFailure(err)).toMatch(/127\.0\.0\.1.*not a public address|refused/i);
    expect(server.tokenRequests).toHaveLength(requests);
  });

  it('sends the client secret only to the pinned issuer', async () => {
    const pinned = new ClientCredentialsTokens(globalThis.fetch).provider(
      'org-1',
      server.url,
      { ...oauth, issuer: 'https://auth.example.test' },
      CLIENT_SECRET,
    );
    const requests = server.tokenRequests.length;
    const err = await connectToolServer(server.url, {
      headers: {},
      fetch: globalThis.fetch,
      signal: AbortSignal.timeout(10_000),
      timeoutMs: 5000,
      authProvider: pinned,
    }).catch((e: unknown) => e);
    expect(describeServerFailure(err)).toMatch(/bound to authorization server https:\/\/auth\.example\.test/);
    expect(server.tokenRequests).toHaveLength(requests);
  });
});
