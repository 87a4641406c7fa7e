/**
 * The client under test of the MCP project's conformance suite (`conformance client --command`):
 * our tool-server client code (connect with the transport fallback, list, call, result shaping)
 * against the URL the suite appends, doing what its scenario (MCP_CONFORMANCE_SCENARIO) expects.
 * Auth scenarios pass their client credentials in MCP_CONFORMANCE_CONTEXT: they become the
 * server's `oauth` settings (client-credentials grant, src/activities/mcp/oauth.ts). The
 * authorization-code scenarios go through Connect as the api does it (src/mcp-oauth/connect-flow.ts:
 * begin, the user's approval, the code exchange) and then the worker's token provider over the
 * grant Connect stored (src/activities/mcp/authorization-code-tokens.ts); the suite's
 * authorization server approves at once, so "the user's browser" here only reads its redirect.
 * It exits non-zero when our code fails; the suite's own checks judge the protocol.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectToolServer, type ConnectOptions } from '../../src/activities/mcp/connect.ts';
import { toolOutcome } from '../../src/activities/mcp/results.ts';
import { randomBytes } from 'node:crypto';
import { AuthorizationCodeTokens } from '../../src/activities/mcp/authorization-code-tokens.ts';
import { ClientCredentialsTokens } from '../../src/activities/mcp/oauth.ts';
import { beginAuthorization, completeAuthorization, type ConnectClient } from '../../src/mcp-oauth/connect-flow.ts';
import { listTools } from '../../src/activities/mcp/tool-server-activities.ts';
import { guardedFetch } from '../../src/outbound/guarded-fetch.ts';

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
if (!url || !scenario) throw new Error('usage: MCP_CONFORMANCE_SCENARIO=<name> client.ts <server url>');

/** The tool each scenario offers, and the arguments a model would send it. */
const CALLS: Record<string, { tool: string; args: Record<string, unknown> } | undefined> = {
  initialize: undefined,
  tools_call: { tool: 'add_numbers', args: { a: 2, b: 3 } },
  'sse-retry': { tool: 'test_reconnection', args: {} },
  'elicitation-sep1034-client-defaults': { tool: 'test_client_elicitation_defaults', args: {} },
  'auth/client-credentials-basic': { tool: 'test-tool', args: {} },
  'auth/client-credentials-jwt': { tool: 'test-tool', args: {} },
};
/** The authorization-code scenarios (Connect). */
const authorizationCode = scenario.startsWith('auth/') && !scenario.startsWith('auth/client-credentials');
if (!(scenario in CALLS) && !authorizationCode)
  throw new Error(`scenario ${scenario} is not one this client takes part in`);
const call = authorizationCode ? { tool: 'test-tool', args: {} } : CALLS[scenario];

const timeoutMs = 10_000;
const signal = AbortSignal.timeout(30_000);
// The suite's servers are on loopback: allowed, as `npm start` allows private targets.
const fetch = guardedFetch(true);
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
  client_id?: string;
  client_secret?: string;
  /** auth/client-credentials-jwt: private_key_jwt. */
  private_key_pem?: string;
  signing_algorithm?: string;
};
const authProvider = authorizationCode
  ? await connect({
      ...(context.client_id ? { clientId: context.client_id } : {}),
      ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
    })
  : context.client_id && (context.client_secret || context.private_key_pem)
    ? new ClientCredentialsTokens(fetch).provider(
        'conformance',
        url,
        {
          grant: 'client_credentials',
          clientId: context.client_id,
          ...(context.private_key_pem
            ? { privateKey: { secret: 'CONFORMANCE', algorithm: context.signing_algorithm ?? 'RS256' } }
            : { clientSecret: { secret: 'CONFORMANCE' } }),
        },
        (context.private_key_pem ?? context.client_secret)!,
      )
    : undefined;
const options: ConnectOptions = {
  headers: {},
  fetch,
  ...(authProvider ? { authProvider } : {}),
  signal,
  timeoutMs,
  // A user who accepts the form without filling any field: the schema's defaults must reach the server.
  elicit: () => Promise.resolve({ action: 'accept', content: {} }),
};

const session = await connectToolServer(url, options);
try {
  const server = { name: 'conformance', url, timeoutSeconds: timeoutMs / 1000 };
  const tools = await listTools(session, server, signal, timeoutMs);
  console.log(`${session.transport}: ${tools.length} tools (${tools.map((t) => t.name).join(', ')})`);
  if (call) {
    if (!tools.some((t) => t.tool === call.tool)) throw new Error(`the server does not list ${call.tool}`);
    const result = (await session.client.callTool({ name: call.tool, arguments: call.args }, undefined, {
      signal,
      timeout: timeoutMs,
    })) as CallToolResult;
    const outcome = toolOutcome(result);
    console.log(`${call.tool}: ${JSON.stringify(outcome)}`);
    if (!outcome.ok) throw new Error(`${call.tool} failed: ${outcome.error.message}`);
  }
} finally {
  await session.close();
}

/** Connect as an admin would, then the worker's provider over the grant it stored. */
async function connect(client: ConnectClient) {
  const redirectUrl = 'http://localhost:3000/api/oauth/callback';
  const state = randomBytes(16).toString('base64url');
  const common = { headers: {}, fetch, signal, timeoutMs };
  const { authorizationUrl, pending } = await beginAuthorization({
    serverUrl: url!,
    client,
    redirectUrl,
    state,
    ...common,
  });
  // The user approves: the authorization server sends the browser back to our redirect URI with the code.
  const approval = await fetch(authorizationUrl, { redirect: 'manual', signal });
  const back = new URL(approval.headers.get('location') ?? '', authorizationUrl);
  if (`${back.origin}${back.pathname}` !== redirectUrl || back.searchParams.get('state') !== state)
    throw new Error(`the authorization server did not send the browser back with our state: ${approval.status}`);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.searchParams.get('error') ?? approval.status}`);
  const grant = await completeAuthorization(pending, code, client, fetch);
  const oauth = {
    grant: 'authorization_code' as const,
    ...(client.clientId ? { clientId: client.clientId } : {}),
    refreshToken: { secret: 'CONFORMANCE' },
  };
  return new AuthorizationCodeTokens(fetch, () => Promise.resolve()).provider(
    'conformance',
    url!,
    oauth,
    grant,
    client.clientSecret,
  );
}
