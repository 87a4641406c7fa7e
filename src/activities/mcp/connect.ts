import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { UrlFetch } from '../../outbound/guarded-fetch.ts';

const CLIENT_INFO = { name: 'agent-run-service', version: '0.1.0' };

/** An initialized MCP session with one server, for one activity. */
export interface ServerSession {
  client: Client;
  transport: 'streamable-http' | 'sse';
  /** Ends the session on the server too (Streamable HTTP's DELETE), best effort. */
  close(): Promise<void>;
}

export interface ConnectOptions {
  headers: Record<string, string>;
  fetch: UrlFetch;
  signal: AbortSignal;
  timeoutMs: number;
  /**
   * Answers a server's `elicitation/create` (form mode) during a call. Without it the client does
   * not offer elicitation, so a server must not ask. Fields the answer leaves out get the schema's
   * defaults (the SDK's `applyDefaults`, SEP-1034) before the answer goes back.
   */
  elicit?: (params: ElicitRequest['params'], signal: AbortSignal) => Promise<ElicitResult>;
}

/** One client per session, offering elicitation only when there is someone to answer it. */
function newClient(opts: ConnectOptions): Client {
  if (!opts.elicit) return new Client(CLIENT_INFO);
  const { elicit } = opts;
  const client = new Client(CLIENT_INFO, { capabilities: { elicitation: { form: { applyDefaults: true } } } });
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => elicit(request.params, extra.signal));
  return client;
}

/**
 * Connects with the Streamable HTTP transport, and with the older HTTP+SSE transport when the
 * server answers the first POST with a 4xx (what a server that only speaks SSE does). Network
 * failures are not a reason to fall back: they are thrown as they are.
 */
export async function connectToolServer(url: string, opts: ConnectOptions): Promise<ServerSession> {
  const target = new URL(url);
  const requestInit = { headers: opts.headers };
  const connectOptions = { signal: opts.signal, timeout: opts.timeoutMs };
  const streamable = new StreamableHTTPClientTransport(target, { requestInit, fetch: opts.fetch });
  const client = newClient(opts);
  try {
    await client.connect(streamable, connectOptions);
    return {
      client,
      transport: 'streamable-http',
      close: async () => {
        await streamable.terminateSession().catch(() => {});
        await client.close().catch(() => {});
      },
    };
  } catch (err) {
    await client.close().catch(() => {});
    if (!(err instanceof StreamableHTTPError && err.code !== undefined && err.code >= 400 && err.code < 500)) throw err;
  }
  const sse = new SSEClientTransport(target, { requestInit, fetch: opts.fetch });
  const sseClient = newClient(opts);
  await sseClient.connect(sse, connectOptions);
  return { client: sseClient, transport: 'sse', close: () => sseClient.close().catch(() => {}) };
}
