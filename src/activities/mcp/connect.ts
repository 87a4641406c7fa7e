import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { UrlFetch } from '../../outbound/guarded-fetch.ts';
import { withServerHeaders } from './oauth.ts';

const CLIENT_INFO = { name: 'agent-run-service', version: '0.1.0' };

/** Answers a server's `elicitation/create` (form mode). */
export type ElicitHandler = (params: ElicitRequest['params'], signal: AbortSignal) => Promise<ElicitResult>;

/** An initialized MCP session with one server, for one activity at a time. */
export interface ServerSession {
  client: Client;
  transport: 'streamable-http' | 'sse';
  /**
   * Who answers the server's elicitation requests now: the tool call using the session sets it for
   * the call (a session may serve several calls of a run). Unset, the options' `elicit`, else decline.
   */
  elicit?: ElicitHandler;
  /** Ends the session on the server too (Streamable HTTP's DELETE), best effort. */
  close(): Promise<void>;
}

export interface ConnectOptions {
  headers: Record<string, string>;
  fetch: UrlFetch;
  signal: AbortSignal;
  timeoutMs: number;
  /**
   * Answers a server's `elicitation/create` (form mode) when the session's `elicit` is unset. Every
   * session offers form elicitation (servers may offer tools only to clients that do, as listing
   * happens before any call); fields the answer leaves out get the schema's defaults (the SDK's
   * `applyDefaults`, SEP-1034) before the answer goes back.
   */
  elicit?: ElicitHandler;
  /** OAuth (src/activities/mcp/oauth.ts): the transports get and send the bearer token; `headers` go to the server's origin only. */
  authProvider?: OAuthClientProvider;
}

/**
 * The transport's reports of an answer stream lost on the network (the server died or the connection
 * was cut), or not resumed. The SDK leaves the call waiting for its timeout then; we close the session,
 * so the call fails at once as ConnectionClosed, a transport failure that the activity retries.
 */
const STREAM_LOST = /^(SSE stream disconnected|Maximum reconnection attempts)/;

/** One client per session; its elicitation requests go to whoever `answerer()` names at the time. */
function newClient(opts: ConnectOptions, answerer: () => ElicitHandler | undefined): Client {
  const client = new Client(CLIENT_INFO, { capabilities: { elicitation: { form: { applyDefaults: true } } } });
  client.onerror = (err) => {
    if (STREAM_LOST.test(err.message)) void client.close().catch(() => {});
  };
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    const elicit = answerer() ?? opts.elicit;
    return elicit ? elicit(request.params, extra.signal) : Promise.resolve({ action: 'decline' } as ElicitResult);
  });
  return client;
}

/**
 * Connects with the Streamable HTTP transport, and with the older HTTP+SSE transport when the
 * server answers the first POST with a 4xx (what a server that only speaks SSE does). Network
 * failures are not a reason to fall back: they are thrown as they are.
 */
export async function connectToolServer(url: string, opts: ConnectOptions): Promise<ServerSession> {
  const target = new URL(url);
  const { authProvider } = opts;
  const { requestInit, fetch } = authProvider
    ? { requestInit: undefined, fetch: withServerHeaders(opts.fetch, target, opts.headers) }
    : { requestInit: { headers: opts.headers }, fetch: opts.fetch };
  const connectOptions = { signal: opts.signal, timeout: opts.timeoutMs };
  const streamable = new StreamableHTTPClientTransport(target, { requestInit, fetch, authProvider });
  let session: ServerSession | undefined;
  const answerer = () => session?.elicit;
  const client = newClient(opts, answerer);
  try {
    await client.connect(streamable, connectOptions);
    return (session = {
      client,
      transport: 'streamable-http',
      close: async () => {
        await streamable.terminateSession().catch(() => {});
        await client.close().catch(() => {});
      },
    });
  } catch (err) {
    await client.close().catch(() => {});
    if (!(err instanceof StreamableHTTPError && err.code !== undefined && err.code >= 400 && err.code < 500)) throw err;
    // Refused with a token the server asked for: SSE would get the same answer.
    if (authProvider && (err.code === 401 || err.code === 403)) throw err;
  }
  const sse = new SSEClientTransport(target, { requestInit, fetch, authProvider });
  const sseClient = newClient(opts, answerer);
  await sseClient.connect(sse, connectOptions);
  return (session = { client: sseClient, transport: 'sse', close: () => sseClient.close().catch(() => {}) });
}
