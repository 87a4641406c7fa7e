import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express from 'express';

export interface OAuthMcpServer {
  /** The MCP endpoint: requires a bearer token from the authorization server. */
  url: string;
  /** The authorization server's issuer URL (another port: another origin). */
  issuer: string;
  /** Token requests the authorization server got: their Authorization header, form and other headers. */
  tokenRequests: { authorization?: string; body: Record<string, string>; headers: Record<string, unknown> }[];
  /** Requests for the metadata documents, by path, and every header the authorization server got. */
  metadataRequests: string[];
  /** Requests of the MCP endpoint: their Authorization header (undefined when none) and X-Team header. */
  mcpRequests: { authorization?: string; team?: string }[];
  /** Tokens issued, in order. */
  issued: string[];
  /** Answer the token endpoint with 503 while set. */
  failTokens: boolean;
  close(): Promise<void>;
}

/**
 * An MCP server of the SDK that requires a bearer token (the SDK's requireBearerAuth: 401 with
 * WWW-Authenticate naming its protected resource metadata), and a tiny authorization server on
 * another port (RFC 8414 metadata and a client-credentials token endpoint, client_secret_basic).
 * Its tool `whoami` answers the client id the token was issued to.
 */
export async function startOAuthMcpServer(opts: {
  clientId: string;
  clientSecret: string;
  expiresIn?: number;
}): Promise<OAuthMcpServer> {
  const tokens = new Map<string, { clientId: string; scopes: string[]; expiresAt: number }>();
  const as = express();
  const mcp = express();
  const listen = (app: express.Express) =>
    new Promise<Server>((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve(server));
    });
  const asServer = await listen(as);
  const mcpServer = await listen(mcp);
  const issuer = `http://127.0.0.1:${(asServer.address() as AddressInfo).port}`;
  const base = `http://127.0.0.1:${(mcpServer.address() as AddressInfo).port}`;
  const state: OAuthMcpServer = {
    url: `${base}/mcp`,
    issuer,
    tokenRequests: [],
    metadataRequests: [],
    mcpRequests: [],
    issued: [],
    failTokens: false,
    close: async () => {
      for (const s of [asServer, mcpServer]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
    },
  };

  as.get('/.well-known/oauth-authorization-server', (req, res) => {
    state.metadataRequests.push(`${issuer}${req.path}`);
    res.json({
      issuer,
      authorization_endpoint: `${issuer}/authorize`, // required by RFC 8414 (and the SDK), unused by this grant
      token_endpoint: `${issuer}/token`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
      response_types_supported: ['token'],
    });
  });
  as.post('/token', express.urlencoded({ extended: false }), (req, res) => {
    const body = req.body as Record<string, string>;
    const { authorization, ...headers } = req.headers;
    state.tokenRequests.push({ authorization, body, headers });
    if (state.failTokens) return void res.status(503).json({ error: 'temporarily_unavailable' });
    const [id, secret] = Buffer.from((authorization ?? '').replace(/^Basic /, ''), 'base64')
      .toString()
      .split(':')
      .map(decodeURIComponent);
    if (id !== opts.clientId || secret !== opts.clientSecret)
      return void res.status(401).json({ error: 'invalid_client', error_description: 'unknown client or secret' });
    if (body.grant_type !== 'client_credentials') return void res.status(400).json({ error: 'unsupported_grant_type' });
    const token = `at-${randomBytes(12).toString('hex')}`;
    const expiresIn = opts.expiresIn ?? 3600;
    tokens.set(token, { clientId: id, scopes: body.scope?.split(' ') ?? [], expiresAt: Date.now() + expiresIn * 1000 });
    state.issued.push(token);
    res.json({ access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope: body.scope });
  });

  mcp.get('/.well-known/oauth-protected-resource/mcp', (req, res) => {
    state.metadataRequests.push(`${base}${req.path}`);
    res.json({ resource: `${base}/mcp`, authorization_servers: [issuer], scopes_supported: ['tools'] });
  });
  const bearer = requireBearerAuth({
    resourceMetadataUrl: `${base}/.well-known/oauth-protected-resource/mcp`,
    verifier: {
      verifyAccessToken: (token) => {
        const info = tokens.get(token);
        if (!info || info.expiresAt < Date.now()) throw new InvalidTokenError('unknown or expired token');
        return Promise.resolve({
          token,
          clientId: info.clientId,
          scopes: info.scopes,
          expiresAt: info.expiresAt / 1000,
        });
      },
    },
  });
  mcp.use('/mcp', (req, _res, next) => {
    state.mcpRequests.push({ authorization: req.headers.authorization, team: req.headers['x-team'] as string });
    next();
  });
  mcp.post('/mcp', express.json(), bearer, async (req, res) => {
    const server = new McpServer({ name: 'oauth-test', version: '1.0.0' });
    server.registerTool('whoami', { description: 'The OAuth client this call came from' }, (extra) => ({
      content: [{ type: 'text', text: `client ${extra.authInfo?.clientId} (${extra.authInfo?.scopes.join(' ')})` }],
    }));
    // Stateless: a transport per request, as the SDK's examples serve one.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  mcp.all('/mcp', bearer, (_req, res) => void res.status(405).end());
  return state;
}
