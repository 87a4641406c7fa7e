import { randomUUID } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ApiDeps } from '../deps.ts';
import { serveAgentTools } from './agent-tools.ts';
import {
  dnsRebindingGuard,
  MCP_PATH,
  mcpAuthentication,
  RESOURCE_METADATA_PATHS,
  resourceMetadata,
  toolCallLimit,
} from './guard.ts';

/** A session nobody used for this long, with no request open, is closed. */
const IDLE_MS = 60 * 60 * 1000;
const MAX_SESSIONS = 10_000;

interface Session {
  transport: StreamableHTTPServerTransport;
  orgId: string;
  userId: string;
  lastSeen: number;
  /** Requests whose responses are still open (a tool call waits on its run). */
  open: number;
  /** Set before the session is closed: calls aborted by that are not cancelled by their client. */
  closing: boolean;
}

/**
 * MCP sessions of this api process (the SDK's stateful Streamable HTTP transport, one McpServer
 * per session). Sessions are in memory: a session lives on the replica that created it (route
 * /mcp by `Mcp-Session-Id` when running several), and after a restart its client initializes
 * again. Runs do not depend on sessions: they are durable, and a call can be resumed with task_id.
 */
class McpSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly deps: ApiDeps) {
    setInterval(() => this.closeIdle(), 60_000).unref();
  }

  async handle(req: Request, res: Response): Promise<void> {
    const caller = req.caller!;
    // The SDK hands `req.auth` to every handler of the request as `extra.authInfo`.
    (req as Request & { auth?: unknown }).auth = { token: '', clientId: caller.userId, scopes: [], extra: { caller } };
    const id = req.get('mcp-session-id');
    const session = id ? this.sessions.get(id) : await this.opened(req, res);
    if (!session) return;
    if (session.orgId !== caller.orgId || session.userId !== caller.userId) {
      return void jsonRpcError(res, 404, -32001, 'Session not found');
    }
    if (req.method === 'DELETE') session.closing = true; // ends the session, never its runs
    session.lastSeen = Date.now();
    session.open += 1;
    res.on('close', () => {
      session.open -= 1;
      session.lastSeen = Date.now();
    });
    await session.transport.handleRequest(req, res, req.body);
  }

  /** A new session for an initialize request; otherwise the SDK's answer to a request without one. */
  private async opened(req: Request, res: Response): Promise<Session | undefined> {
    if (req.get('mcp-session-id') !== undefined || req.method !== 'POST' || !isInitializeRequest(req.body)) {
      const unknown = req.get('mcp-session-id') !== undefined;
      jsonRpcError(res, unknown ? 404 : 400, unknown ? -32001 : -32000, unknown ? 'Session not found' : 'No session');
      return undefined;
    }
    if (this.sessions.size >= MAX_SESSIONS) {
      jsonRpcError(res, 503, -32000, 'Too many MCP sessions on this api process; retry shortly');
      return undefined;
    }
    const caller = req.caller!;
    const session: Session = {
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void this.sessions.set(sid, session),
      }),
      orgId: caller.orgId,
      userId: caller.userId,
      lastSeen: Date.now(),
      open: 0,
      closing: false,
    };
    session.transport.onclose = () => {
      session.closing = true;
      if (session.transport.sessionId) this.sessions.delete(session.transport.sessionId);
    };
    const server = new McpServer(
      { name: 'agent-run-service', version: '0.1.0' },
      {
        capabilities: { logging: {} },
        instructions: 'Each tool is an agent: call it with a message; continue with task_id.',
      },
    );
    serveAgentTools(server, this.deps, () => session.closing);
    await server.connect(session.transport);
    return session;
  }

  private closeIdle(): void {
    const before = Date.now() - IDLE_MS;
    for (const session of this.sessions.values()) {
      if (session.open > 0 || session.lastSeen > before) continue;
      session.closing = true;
      void session.transport.close();
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
