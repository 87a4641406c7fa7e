import { Prisma } from '../generated/prisma/client.ts';
import type { Db } from './client.ts';

/**
 * Written exactly as the expression of the GIN index `memories_content_fts_idx`
 * (to_tsvector('english', "content")): any other spelling, e.g. the config as a
 * bound parameter, makes the planner skip the index and scan every memory.
 */
export const memoryDocument = Prisma.sql`to_tsvector('english', content)`;
/** websearch syntax: plain words, "quoted phrases", or, -excluded; never a syntax error. */
const tsQuery = (text: string) => Prisma.sql`websearch_to_tsquery('english', ${text})`;

export interface MemoryRow {
  id: string;
  content: string;
  tags: string[];
  run_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface MemoryScope {
  orgId: string;
  agentId: string;
}

/** Memories of one agent in one org matching `query`, best first (ts_rank, then newest). */
export async function searchMemories(
  db: Db,
  scope: MemoryScope,
  { query, limit, tag }: { query: string; limit: number; tag?: string },
): Promise<(MemoryRow & { rank: number })[]> {
  return db.$queryRaw<(MemoryRow & { rank: number })[]>`
    SELECT id, content, tags, run_id, created_at, updated_at, ts_rank(${memoryDocument}, q)::float8 AS rank
    FROM memories, ${tsQuery(query)} AS q
    WHERE org_id = ${scope.orgId} AND agent_id = ${scope.agentId} AND ${memoryDocument} @@ q
      ${tag === undefined ? Prisma.empty : Prisma.sql`AND tags @> ARRAY[${tag}]::text[]`}
    ORDER BY rank DESC, created_at DESC, id DESC
    LIMIT ${limit}`;
}

/** Keyset position in newest-first order: the page continues after this row. */
export interface MemoryPosition {
  createdAt: Date;
  id: string;
}

/**
 * One page of an agent's memories, newest first (created_at, then id, both
 * descending). `query` narrows to full-text matches without changing the order,
 * so the same keyset cursor pages filtered and unfiltered lists alike.
 */
export async function listMemories(
  db: Db,
  scope: MemoryScope,
  { limit, after, query, tag }: { limit: number; after?: MemoryPosition; query?: string; tag?: string },
): Promise<MemoryRow[]> {
  const conditions = [Prisma.sql`org_id = ${scope.orgId}`, Prisma.sql`agent_id = ${scope.agentId}`];
  if (after)
    conditions.push(Prisma.sql`(created_at, id) < (${after.createdAt.toISOString()}::timestamptz, ${after.id})`);
  if (query !== undefined) conditions.push(Prisma.sql`${memoryDocument} @@ ${tsQuery(query)}`);
  if (tag !== undefined) conditions.push(Prisma.sql`tags @> ARRAY[${tag}]::text[]`);
  return db.$queryRaw<MemoryRow[]>`
    SELECT id, content, tags, run_id, created_at, updated_at
    FROM memories
    WHERE ${Prisma.join(conditions, ' AND ')}
    ORDER BY created_at DESC, id DESC
    LIMIT ${limit}`;
}

export interface NewMemory {
  id: string;
  runId: string;
  content: string;
  tags: string[];
}

/** Stores the memory in the agent's scope unless a memory with its id exists (then stores nothing). */
export async function insertMemoryOnce(db: Db, scope: MemoryScope, memory: NewMemory): Promise<void> {
  await db.memory.createMany({
    data: [{ ...memory, orgId: scope.orgId, agentId: scope.agentId }],
    skipDuplicates: true,
  });
}

/** Deletes the memory if it is in the agent's scope; returns whether it was. */
export async function deleteMemoryInScope(db: Db, scope: MemoryScope, memoryId: string): Promise<boolean> {
  const { count } = await db.memory.deleteMany({ where: { id: memoryId, orgId: scope.orgId, agentId: scope.agentId } });
  return count > 0;
}
