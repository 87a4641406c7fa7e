import type { Prisma } from '../generated/prisma/client.ts';
import type { Db } from './client.ts';

/** An MCP session of /mcp as kept for every api replica (see src/api/mcp/endpoint.ts). */
export interface McpSessionRow {
  id: string;
  orgId: string;
  userId: string;
  init: unknown;
  lastSeenAt: Date;
}

/** A session's tools/call and the run it follows. */
export interface McpCallRow {
  sessionId: string;
  requestId: string;
  progressToken: unknown;
  agentId: string;
  taskId: string;
  runId: string;
  createdAt: Date;
}

export async function createMcpSession(db: Db, session: Omit<McpSessionRow, 'lastSeenAt'>): Promise<void> {
  await db.mcpSession.create({ data: { ...session, init: session.init as Prisma.InputJsonValue } });
}

export function findMcpSession(db: Db, id: string): Promise<McpSessionRow | null> {
  return db.mcpSession.findUnique({ where: { id } });
}

/** Notes the sessions' use now; the number of them still kept. */
export async function touchMcpSessions(db: Db, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { count } = await db.mcpSession.updateMany({ where: { id: { in: ids } }, data: { lastSeenAt: new Date() } });
  return count;
}

export async function deleteMcpSession(db: Db, id: string): Promise<void> {
  await db.mcpSession.deleteMany({ where: { id } });
}

/** Forgets sessions unused since `before`, with their calls. */
export async function deleteIdleMcpSessions(db: Db, before: Date): Promise<void> {
  await db.mcpSession.deleteMany({ where: { lastSeenAt: { lt: before } } });
}

/** Records (or records again) the run a session's request follows. */
export async function recordMcpCall(db: Db, call: Omit<McpCallRow, 'createdAt'>): Promise<void> {
  const data = { ...call, progressToken: (call.progressToken ?? undefined) as Prisma.InputJsonValue | undefined };
  await db.mcpCall.upsert({
    where: { sessionId_requestId: { sessionId: call.sessionId, requestId: call.requestId } },
    create: data,
    update: data,
  });
}

export function findMcpCall(db: Db, sessionId: string, requestId: string): Promise<McpCallRow | null> {
  return db.mcpCall.findUnique({ where: { sessionId_requestId: { sessionId, requestId } } });
}

export function findMcpCallOfRun(db: Db, sessionId: string, runId: string): Promise<McpCallRow | null> {
  return db.mcpCall.findFirst({ where: { sessionId, runId } });
}

/** A session's calls, oldest first, with their runs' status and times. */
export function listMcpCalls(db: Db, sessionId: string, skip: number, take: number) {
  return db.mcpCall.findMany({ where: { sessionId }, orderBy: { createdAt: 'asc' }, skip, take });
}
