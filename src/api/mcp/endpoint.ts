import { randomUUID } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { getRequestListener } from '@hono/node-server';
import { isInitializeRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  createMcpSession,
  deleteIdleMcpSessions,
  deleteMcpSession,
  findMcpSession,
  touchMcpSessions,
} from '../../db/mcp-sessions.ts';
import type { Caller } from '../../auth/caller.ts';
import type { ApiDeps } from '../deps.ts';
import { serveAgentTools } from './agent-tools.ts';
import { serveReadResources } from './resources.ts';
import {
  dnsRebindingGuard,
  MCP_PATH,
  mcpAuthentication,
  RESOURCE_METADATA_PATHS,
  resourceMetadata,
  toolCallLimit,
} from './guard.ts';
import { RunTaskStore, TASK_POLL_MS } from './tasks.ts';
import { parseCallEventId, resumeCall, RunLogEventIds, withPostContext } from './resume.ts';

/** A session nobody used for this long, with no request open, is closed (and forgotten by every replica). */
const IDLE_MS = 60 * 60 * 1000;
const MAX_SESSIONS = 10_000;
/** How often a session's last use is written (and its row checked: a session deleted elsewhere ends here too). */
const TOUCH_MS = 60_000;
const SSE_RETRY_MS = 1000;
const SERVER_INFO = { name: 'agent-run-service', version: '0.1.0' };

interface Session {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  orgId: string;
  userId: string;
  lastSeen: number;
  touched: number;
  /** Requests whose responses are still open (a tool call waits on its run). */
  open: number;
  /** Set before the session is closed: calls aborted by that are not cancelled by their client. */
  closing: boolean;
  /** Calls followed here, by request key (a resumed stream takes one over). */
  calls: Map<string, AbortController>;
  /** The caller of its latest request. */
  caller: Caller;
  /** The client resumes a stream that ends before its response (2025-11-25 clients: priming events). */
  resumable: boolean;
}

interface ClientInit {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  clientInfo: Record<string, unknown>;
}

/**
 * MCP sessions, served by any api process: each is the SDK's stateful Streamable HTTP transport
 * with one McpServer, and is kept in mcp_sessions with the client's initialize. A replica that gets
 * a request for a session it does not hold (it was created on another, or before a restart)
 * replays that initialize into a session of its own under the same id. Tool call streams resume
 * from the run event log (resume.ts).
 */
class McpSessions {
  private readonly sessions = new Map<string, Session>();
  /** Recoveries under way: concurrent requests of a session (a call's resume, the GET stream) share one. */
  private readonly recovering = new Map<string, Promise<Session | undefined>>();

  constructor(private readonly deps: ApiDeps) {
    setInterval(() => void this.closeIdle(), 60_000).unref();
    deps.drain.stopSignal.addEventListener('abort', () => this.closeStreams(), { once: true });
  }

  /**
   * This api is leaving: the streams of calls clients can resume end now (the SDK's closeSSEStream),
   * so they continue on another replica with Last-Event-ID instead of waiting for the drain's end.
   */
  private closeStreams(): void {
    for (const session of this.sessions.values()) {
      session.transport.closeStandaloneSSEStream();
      if (!session.resumable) continue;
      for (const key of session.calls.keys()) session.transport.closeSSEStream(JSON.parse(key) as RequestId);
    }
  }

  async handle(req: Request, res: Response): Promise<void> {
    const caller = req.caller!;
    const id = req.get('mcp-session-id');
    const session = id ? (this.sessions.get(id) ?? (await this.recoveredOnce(id))) : await this.opened(req, res);
    if (!session) {
      if (id) jsonRpcError(res, 404, -32001, 'Session not found');
      return;
    }
    if (session.orgId !== caller.orgId || session.userId !== caller.userId) {
      return void jsonRpcError(res, 404, -32001, 'Session not found');
    }
    session.caller = caller;
    if (req.method === 'DELETE') session.closing = true; // ends the session, never its runs
    if (!(await this.touch(session))) return void jsonRpcError(res, 404, -32001, 'Session not found');
    session.open += 1;
    res.on('close', () => {
      session.open -= 1;
      session.lastSeen = Date.now();
    });
    const lastEventId = req.get('last-event-id');
    if (req.method === 'GET' && lastEventId !== undefined) {
      const from = parseCallEventId(lastEventId);
      if (from) {
        // This process's call of it stops, its stream (if still open) with it: the resumed stream
        // alone carries the call's result. The run goes on.
        const call = session.calls.get(from.requestKey);
        if (call) {
          session.transport.closeSSEStream(from.requestId);
          call.abort();
        }
        return resumeCall(this.deps, caller, session.id, from, res);
      }
      delete req.headers['last-event-id']; // a standalone stream's messages are not kept: it opens afresh
    }
    await this.serve(session, req, res);
    if (req.method === 'DELETE') await deleteMcpSession(this.deps.db, session.id);
  }

  /** Passes the request to the session's transport (the SDK's Web-standard one, bridged to Node). */
  private serve(session: Session, req: Request, res: Response): Promise<void> {
    const caller = req.caller!;
    // The SDK hands authInfo to every handler of the request as `extra.authInfo`.
    const authInfo = { token: '', clientId: caller.userId, scopes: [], extra: { caller } };
    const listener = getRequestListener(
      (web) => session.transport.handleRequest(web, { authInfo, parsedBody: req.body as unknown }),
      { overrideGlobalObjects: false },
    );
    return withPostContext(req.body, () => listener(req, res));
  }

  /** A new session for an initialize request; otherwise the SDK's answer to a request without one. */
  private async opened(req: Request, res: Response): Promise<Session | undefined> {
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      jsonRpcError(res, 400, -32000, 'No session');
      return undefined;
    }
    if (this.sessions.size >= MAX_SESSIONS) {
      jsonRpcError(res, 503, -32000, 'Too many MCP sessions on this api process; retry shortly');
      return undefined;
    }
    const caller = req.caller!;
    const { protocolVersion, capabilities, clientInfo } = req.body.params;
    const init: ClientInit = { protocolVersion, capabilities, clientInfo };
    return this.created(randomUUID(), caller, caller, init.protocolVersion, async (id) => {
      await createMcpSession(this.deps.db, { id, orgId: caller.orgId, userId: caller.userId, init });
    });
  }

  private recoveredOnce(id: string): Promise<Session | undefined> {
    let pending = this.recovering.get(id);
    if (!pending) {
      pending = this.recovered(id).finally(() => this.recovering.delete(id));
      this.recovering.set(id, pending);
    }
    return pending;
  }

  /** The session `id` kept in the database, recreated here by replaying its client's initialize. */
  private async recovered(id: string): Promise<Session | undefined> {
    if (this.sessions.size >= MAX_SESSIONS) return undefined;
    const row = await findMcpSession(this.deps.db, id);
    if (!row || row.lastSeenAt.getTime() < Date.now() - IDLE_MS) return undefined;
    const owner = { orgId: row.orgId, userId: row.userId, role: 'member' as const }; // the request's caller replaces it
    const init = row.init as unknown as ClientInit;
    const session = await this.created(id, row, owner, init.protocolVersion, async () => {});
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const post = (body: unknown, extra: Record<string, string> = {}) =>
      session.transport.handleRequest(
        new globalThis.Request('http://localhost/mcp', {
          method: 'POST',
          headers: { ...headers, ...extra },
          body: JSON.stringify(body),
        }),
      );
    await (await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init })).text();
    await post(
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': id, 'mcp-protocol-version': init.protocolVersion },
    );
    return session;
  }

  private async created(
    id: string,
    owner: { orgId: string; userId: string },
    caller: Caller,
    protocolVersion: string,
    onInitialized: (id: string) => Promise<void>,
  ): Promise<Session> {
    const session: Session = {
      id,
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        eventStore: new RunLogEventIds(),
        // The SSE retry field of priming events: a client whose stream ends reconnects after this long.
        retryInterval: SSE_RETRY_MS,
        onsessioninitialized: async (sid) => {
          await onInitialized(sid);
          this.sessions.set(sid, session);
        },
      }),
      orgId: owner.orgId,
      userId: owner.userId,
      lastSeen: Date.now(),
      touched: Date.now(),
      open: 0,
      closing: false,
      calls: new Map(),
      caller,
      resumable: protocolVersion >= '2025-11-25',
    };
    session.transport.onclose = () => {
      session.closing = true;
      if (this.sessions.get(id) === session) this.sessions.delete(id);
    };
    const tasks = new RunTaskStore(this.deps, () => session.caller);
    const server = new McpServer(SERVER_INFO, {
      capabilities: {
        logging: {},
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore: tasks,
      defaultTaskPollInterval: TASK_POLL_MS,
      instructions:
        'Each tool is an agent: call it with a message; continue with task_id. ' +
        'Read a run (agent-run://runs/{run_id}), its events (agent-run://runs/{run_id}/events?after=0) ' +
        'and a task’s messages (agent-run://tasks/{task_id}/messages) as resources.',
    });
    serveReadResources(server, this.deps);
    serveAgentTools(server, this.deps, {
      id: () => session.transport.sessionId,
      closing: () => session.closing,
      calls: session.calls,
      tasks,
    });
    await server.connect(session.transport);
    return session;
  }

  /** Notes the session's use; false when its row is gone (deleted through another replica). */
  private async touch(session: Session): Promise<boolean> {
    session.lastSeen = Date.now();
    if (session.lastSeen - session.touched < TOUCH_MS || session.closing) return true;
    session.touched = session.lastSeen;
    if ((await touchMcpSessions(this.deps.db, [session.id])) > 0) return true;
    session.closing = true;
    await session.transport.close();
    return false;
  }

  private async closeIdle(): Promise<void> {
    const before = Date.now() - IDLE_MS;
    for (const session of this.sessions.values()) {
      if (session.open > 0 || session.lastSeen > before) continue;
      session.closing = true;
      void session.transport.close();
    }
    // A session whose call waits on a long run is in use, though no request came for a while.
    const busy = [...this.sessions.values()].filter((s) => s.open > 0).map((s) => s.id);
    try {
      await touchMcpSessions(this.deps.db, busy);
      await deleteIdleMcpSessions(this.deps.db, new Date(before));
    } catch (err) {
      this.deps.logger.warn({ err }, 'keeping MCP sessions up to date failed');
    }
  }
}

function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** Serves MCP at /mcp (Streamable HTTP) and its protected-resource metadata. */
export function mountMcp(app: Express, deps: ApiDeps): void {
  const sessions = new McpSessions(deps);
  app.get(RESOURCE_METADATA_PATHS, resourceMetadata(deps));
  const chain = [
    dnsRebindingGuard(deps),
    mcpAuthentication(deps),
    toolCallLimit(deps),
    (req: Request, res: Response) => sessions.handle(req, res),
  ];
  app.post(MCP_PATH, ...chain);
  app.get(MCP_PATH, ...chain);
  app.delete(MCP_PATH, ...chain);
}
