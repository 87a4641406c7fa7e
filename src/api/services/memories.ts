import type { Db } from '../../db/client.ts';
import { listMemories, type MemoryRow } from '../../db/memories.ts';
import { forbidden } from '../../shared/domain-error.ts';
import { loadUsableAgent } from './agent-access.ts';
import type { AgentContext, Caller } from '../../auth/caller.ts';
import { decodeKeysetCursor, keysetPage } from '../cursors.ts';

/**
 * The agent whose memory the caller asks for. Guests never read memory: it holds
 * what the agent learned in every user's conversations. The `X-Agent-Id` agent
 * was checked by `requireAgent`; another agent in the path gets the same checks:
 * unknown → 404, another org's → 403, not granted to a member → 403.
 */
export async function loadMemoryAgent(
  db: Db,
  agentId: string,
  caller: Caller,
  headerAgent: AgentContext,
): Promise<{ id: string; orgId: string }> {
  if (caller.role === 'guest') throw forbidden('Guests may not read agent memory');
  if (agentId === headerAgent.id) return headerAgent;
  return loadUsableAgent(db, agentId, caller);
}

const iso = (d: Date) => d.toISOString();

function toRecord(m: MemoryRow) {
  return {
    id: m.id,
    content: m.content,
    tags: m.tags,
    run_id: m.run_id,
    created_at: iso(m.created_at),
    updated_at: iso(m.updated_at),
  };
}

export async function memoryPage(
  db: Db,
  agent: { id: string; orgId: string },
  query: { limit: number; cursor?: string; q?: string; tag?: string },
) {
  const after = query.cursor === undefined ? undefined : decodeKeysetCursor(agent.id, query.cursor);
  const rows = await listMemories(
    db,
    { orgId: agent.orgId, agentId: agent.id },
    { limit: query.limit + 1, after, query: query.q, tag: query.tag?.toLowerCase() },
  );
  const page = keysetPage(agent.id, rows, query.limit, (m) => ({ createdAt: m.created_at, id: m.id }));
  return {
    agent_id: agent.id,
    memories: page.items.map(toRecord),
    next_cursor: page.nextCursor,
    count: page.items.length,
  };
}
