import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import express from 'express';

export interface OAuthCodeServer {
  /** The MCP endpoint: requires a bearer token of the user who consented. */
  url: string;
  issuer: string;
  /** Clients that registered themselves (dynamic client registration). */
  registered: OAuthClientInformationFull[];
  /** Authorization requests: their query parameters. */
  authorizations: Record<string, string>[];
  /** Every token the server issued (access and refresh), in order. */
  issued: string[];
  /** Refresh-token grants it answered. */
  refreshes: number;
  /** Authorization headers of the requests of the MCP endpoint (undefined when none). */
  mcpAuthorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * A real OAuth authorization server built on the SDK's `mcpAuthRouter` (RFC 8414 metadata, RFC 9728
 * protected resource metadata, dynamic client registration, PKCE checked by the SDK's token
 * handler, refresh tokens rotated on every use), and an MCP server on the same process that
 * requires its bearer tokens. The user "alice" consents at once: the authorization endpoint sends
 * the browser straight back to the client's redirect URI with a code.
 */
export async function startOAuthCodeServer(opts: { accessTokenSeconds?: number } = {}): Promise<OAuthCodeServer> {
  const app = express();
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { clientId: string; challenge: string; redirectUri: string; scopes: string[] }>();
  const access = new Map<string, { clientId: string; scopes: string[]; expiresAt: number }>();
  const refresh = new Map<string, { clientId: string; scopes: string[] }>();
  const state: OAuthCodeServer = {
    url: `${base}/mcp`,
    issuer: `${base}/`,
    registered: [],
    authorizations: [],
    issued: [],
    refreshes: 0,
    mcpAuthorizations: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const token = (prefix: string) => `${prefix}-${randomBytes(16).toString('hex')}`;
  const issue = (clientId: string, scopes: string[]) => {
    const accessToken = token('at');
    const refreshToken = token('rt');
    const expiresIn = opts.accessTokenSeconds ?? 3600;
    access.set(accessToken, { clientId, scopes, expiresAt: Date.now() + expiresIn * 1000 });
    refresh.set(refreshToken, { clientId, scopes });
    state.issued.push(accessToken, refreshToken);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: expiresIn,
      refresh_token: refreshToken,
      scope: scopes.join(' '),
    };
  };

  const provider: OAuthServerProvider = {
    clientsStore: {
      getClient: (id) => clients.get(id),
      registerClient: (client) => {
        const full = client as OAuthClientInformationFull;
        clients.set(full.client_id, full);
        state.registered.push(full);
        return full;
      },
    },
    authorize(client, params, res) {
      state.authorizations.push(Object.fromEntries(new URL(`${base}${res.req.originalUrl}`).searchParams));
      const code = token('code');
      codes.set(code, {
        clientId: client.client_id,
        challenge: params.codeChallenge,
        redirectUri: params.redirectUri,
        scopes: params.scopes ?? [],
      });
      const back = new URL(params.redirectUri);
      back.searchParams.set('code', code);
      if (params.state) back.searchParams.set('state', params.state);
      res.redirect(302, back.href);
      return Promise.resolve();
    },
    challengeForAuthorizationCode(_client, code) {
      const grant = codes.get(code);
      if (!grant) throw new InvalidGrantError('unknown code');
      return Promise.resolve(grant.challenge);
    },
    exchangeAuthorizationCode(client, code, _verifier, redirectUri) {
      const grant = codes.get(code);
      codes.delete(code);
      if (!grant || grant.clientId !== client.client_id || grant.redirectUri !== redirectUri)
        throw new InvalidGrantError('unknown code');
      return Promise.resolve(issue(client.client_id, grant.scopes));
    },
    exchangeRefreshToken(client, refreshToken) {
      const grant = refresh.get(refreshToken);
      refresh.delete(refreshToken); // rotated: a refresh token works once
      if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
      state.refreshes++;
      return Promise.resolve(issue(client.client_id, grant.scopes));
    },
    verifyAccessToken(accessToken) {
      const info = access.get(accessToken);
      if (!info || info.expiresAt < Date.now()) throw new InvalidTokenError('unknown or expired token');
      return Promise.resolve({ token: accessToken, ...info, expiresAt: Math.floor(info.expiresAt / 1000) });
    },
  };

  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(base),
      resourceServerUrl: new URL(`${base}/mcp`),
      scopesSupported: ['tickets'],
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: `${base}/.well-known/oauth-protected-resource/mcp`,
  });
  app.use('/mcp', (req, _res, next) => {
    state.mcpAuthorizations.push(req.headers.authorization);
    next();
  });
  app.post('/mcp', express.json(), bearer, async (req, res) => {
    const mcp = new McpServer({ name: 'oauth-code-test', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Who the token is for' }, (extra) => ({
      content: [{ type: 'text', text: `alice via ${extra.authInfo?.clientId} (${extra.authInfo?.scopes.join(' ')})` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.all('/mcp', bearer, (_req, res) => void res.status(405).end());
  return state;
}
