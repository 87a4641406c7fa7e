import { beforeAll, describe, expect, it } from 'vitest';
import { memoryDocument } from '../../src/db/memories.ts';
import { call, exchange, readSse, withoutHeartbeats } from '../support/http.ts';
import { createGuestTenant, createTenant, testDb, type Tenant } from '../support/tenant.ts';
import { runTool, startQuietRun, toolOutput, type ToolScope } from '../support/tools.ts';

interface Recalled {
  memories: { id: string; content: string; tags: string[]; created_at: string; rank: number }[];
}

describe('memory tools', () => {
  let tenant: Tenant;
  let scope: ToolScope;
  let otherAgent: ToolScope;
  let otherOrg: ToolScope;

  beforeAll(async () => {
    tenant = await createTenant();
    const other = await createTenant();
    scope = await startQuietRun(await exchange(tenant.keys.member), tenant.agentId, tenant.orgId);
    otherAgent = { ...scope, agentId: tenant.privateAgentId };
    otherOrg = await startQuietRun(await exchange(other.keys.owner), other.agentId, other.orgId);
  });

  const recall = (where: ToolScope, args: Record<string, unknown>) =>
    toolOutput<Recalled>(where, 'recall_memory', args);

  it("save_memory stores a memory of the run's org and agent, once per tool call even when retried", async () => {
    const args = { content: 'The user prefers metric units', tags: ['Prefs', 'units', 'prefs'] };
    const first = await toolOutput<{ memory_id: string }>(scope, 'save_memory', args, 'call_save_1');
    expect(first.memory_id).toMatch(/^mem_[0-9a-f]{32}$/);
    const retried = await toolOutput<{ memory_id: string }>(scope, 'save_memory', args, 'call_save_1');
    expect(retried).toEqual(first);
    const rows = await testDb().memory.findMany({ where: { agentId: tenant.agentId, content: args.content } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: first.memory_id,
      orgId: tenant.orgId,
      runId: scope.runId,
      tags: ['prefs', 'units'],
    });
  });

  it("recall_memory finds stemmed matches, best first, and never another agent's or org's memories", async () => {
    await toolOutput(scope, 'save_memory', {
      content: 'Alice is running the Berlin marathon in September',
      tags: ['sport'],
    });
    await toolOutput(scope, 'save_memory', { content: 'Alice runs every morning; the marathon run matters to her' });
    await toolOutput(scope, 'save_memory', { content: 'The office plant needs water on Fridays' });
    await toolOutput(otherAgent, 'save_memory', { content: 'Private agent: Bob runs a bakery' });
    await toolOutput(otherOrg, 'save_memory', { content: 'Other org: Carol ran the Paris marathon' });

    const found = await recall(scope, { query: 'run' });
    expect(found.memories.map((m) => m.content).sort()).toEqual([
      'Alice is running the Berlin marathon in September',
      'Alice runs every morning; the marathon run matters to her',
    ]);
    // Two forms of "run" outrank one.
    expect(found.memories[0]!.content).toContain('marathon run');
    expect(found.memories[0]!.rank).toBeGreaterThan(found.memories[1]!.rank);
    expect(found.memories[0]).toMatchObject({
      id: expect.stringMatching(/^mem_/),
      tags: [],
      created_at: expect.any(String),
    });

    expect((await recall(scope, { query: 'marathon running', limit: 1 })).memories).toHaveLength(1);
    expect((await recall(scope, { query: 'run', tag: 'SPORT' })).memories.map((m) => m.content)).toEqual([
      'Alice is running the Berlin marathon in September',
    ]);
    expect((await recall(scope, { query: 'bakery' })).memories).toEqual([]);
    expect((await recall(scope, { query: 'Paris' })).memories).toEqual([]);
    expect((await recall(otherAgent, { query: 'running' })).memories.map((m) => m.content)).toEqual([
      'Private agent: Bob runs a bakery',
    ]);
    expect((await recall(otherOrg, { query: 'Berlin' })).memories).toEqual([]);
    // Stop words only: an empty query matches nothing rather than failing.
    expect((await recall(scope, { query: 'the and of' })).memories).toEqual([]);
    // websearch syntax never raises a syntax error.
    expect((await recall(scope, { query: '"marathon run" -plant or (' })).memories.length).toBeGreaterThan(0);
  });

  it("forget_memory deletes only this agent's memories", async () => {
    const mine = await toolOutput<{ memory_id: string }>(scope, 'save_memory', { content: 'Temporary note to forget' });
    const theirs = await toolOutput<{ memory_id: string }>(otherAgent, 'save_memory', { content: 'Private note' });
    expect(await runTool(scope, 'forget_memory', { memory_id: theirs.memory_id })).toMatchObject({
      ok: false,
      error: { code: 'MEMORY_NOT_FOUND' },
    });
    expect(await runTool(otherOrg, 'forget_memory', { memory_id: mine.memory_id })).toMatchObject({
      ok: false,
      error: { code: 'MEMORY_NOT_FOUND' },
    });
    expect(await toolOutput(scope, 'forget_memory', { memory_id: mine.memory_id })).toEqual({
      deleted: true,
      memory_id: mine.memory_id,
    });
    expect(await testDb().memory.count({ where: { id: { in: [mine.memory_id, theirs.memory_id] } } })).toBe(1);
  });

  it('refuses over-long content and too many tags as invalid arguments', async () => {
    const long = await runTool(scope, 'save_memory', { content: 'x'.repeat(8001) });
    expect(long).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENTS', message: expect.stringContaining('content') },
    });
    const tags = await runTool(scope, 'save_memory', {
      content: 'ok',
      tags: Array.from({ length: 21 }, (_, i) => `t${i}`),
    });
    expect(tags).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENTS', message: expect.stringContaining('tags') },
    });
    expect(await runTool(scope, 'save_memory', { content: '   ' })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENTS' },
    });
  });

  it('searches through the GIN index: the query expression is the index expression', async () => {
    const plan = await testDb().$transaction(async (tx) => {
      // A small table is cheaper to scan; forbidding the scan shows whether the index can serve the search at all.
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      return tx.$queryRaw<
        { 'QUERY PLAN': string }[]
      >`EXPLAIN SELECT id FROM memories WHERE ${memoryDocument} @@ websearch_to_tsquery('english', 'run')`;
    });
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('memories_content_fts_idx');
  });
});

describe('GET /api/agents/{agent_id}/memories', () => {
  let tenant: Tenant;
  let other: Tenant;
  let member: string;
  let owner: string;
  const ids: string[] = [];

  beforeAll(async () => {
    [tenant, other] = await Promise.all([createTenant(), createTenant()]);
    [member, owner] = await Promise.all([exchange(tenant.keys.member), exchange(tenant.keys.owner)]);
    // 120 memories, three per millisecond, so paging must break created_at ties by id.
    const base = Date.UTC(2026, 0, 1);
    const rows = Array.from({ length: 120 }, (_, i) => ({
      id: `mem_${tenant.agentId.slice(4, 12)}_${String(i).padStart(3, '0')}`,
      orgId: tenant.orgId,
      agentId: tenant.agentId,
      content: i % 10 === 0 ? `Memory ${i}: the user went running` : `Memory ${i}: an ordinary fact`,
      tags: i % 2 === 0 ? ['even'] : [],
      createdAt: new Date(base + Math.floor(i / 3)),
    }));
    await testDb().memory.createMany({ data: rows });
    await testDb().memory.create({
      data: {
        id: `mem_private_${tenant.agentId}`,
        orgId: tenant.orgId,
        agentId: tenant.privateAgentId,
        content: 'private',
      },
    });
    ids.push(...rows.map((r) => r.id).reverse());
  });

  const list = (agentId: string, query = '', token = member, headerAgent = tenant.agentId) =>
    call('GET', `/api/agents/${agentId}/memories${query}`, { token, agentId: headerAgent });

  it('pages 120 memories newest first with an opaque cursor, ties broken by id', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const res = await list(tenant.agentId, `?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as {
        agent_id: string;
        memories: { id: string }[];
        next_cursor: string | null;
        count: number;
      };
      expect(page.agent_id).toBe(tenant.agentId);
      expect(page.count).toBe(page.memories.length);
      sizes.push(page.count);
      seen.push(...page.memories.map((m) => m.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([50, 50, 20]);
    expect(seen).toEqual(ids);
  });

  it('returns the documented record shape and the default page size', async () => {
    const page = (await (await list(tenant.agentId)).json()) as {
      memories: Record<string, unknown>[];
      next_cursor: string | null;
      count: number;
    };
    expect(page.count).toBe(50);
    expect(page.next_cursor).toEqual(expect.any(String));
    expect(page.memories[0]).toEqual({
      id: ids[0],
      content: 'Memory 119: an ordinary fact',
      tags: [],
      run_id: null,
      created_at: '2026-01-01T00:00:00.039Z',
      updated_at: expect.any(String),
    });
  });

  it('narrows to full-text matches with q (stemmed) and to a tag, keeping the order and the cursor', async () => {
    const first = (await (await list(tenant.agentId, '?q=run&limit=5')).json()) as {
      memories: { content: string }[];
      next_cursor: string;
    };
    expect(first.memories.map((m) => m.content)).toEqual(
      [110, 100, 90, 80, 70].map((i) => `Memory ${i}: the user went running`),
    );
    const rest = (await (await list(tenant.agentId, `?q=run&limit=50&cursor=${first.next_cursor}`)).json()) as {
      memories: unknown[];
      next_cursor: null;
    };
    expect(rest.memories).toHaveLength(7);
    expect(rest.next_cursor).toBeNull();
    const even = (await (await list(tenant.agentId, '?tag=EVEN&limit=200')).json()) as { count: number };
    expect(even.count).toBe(60);
  });

  it("shows what a real run saved with save_memory, with the run's id", async () => {
    const res = await call('POST', '/api/run', {
      token: member,
      agentId: tenant.agentId,
      body: {
        messages: [
          { role: 'user', content: '/tool save_memory {"content": "The user\'s dog is called Rex", "tags": ["pets"]}' },
        ],
      },
    });
    const events = withoutHeartbeats(await readSse(res)).map((f) => f.data);
    expect(events.at(-1)!.type).toBe('RUN_FINISHED');
    const page = (await (await list(tenant.agentId, '?tag=pets')).json()) as { memories: Record<string, unknown>[] };
    expect(page.memories).toEqual([
      expect.objectContaining({ content: "The user's dog is called Rex", tags: ['pets'], run_id: events[0]!.run_id }),
    ]);
  });

  it('checks the path agent like X-Agent-Id: 403 for another org or an ungranted agent, 404 when unknown', async () => {
    expect((await list(tenant.privateAgentId)).status).toBe(403);
    const ownerView = (await (await list(tenant.privateAgentId, '', owner)).json()) as {
      memories: { content: string }[];
    };
    expect(ownerView.memories.map((m) => m.content)).toEqual(['private']);
    expect((await list(other.agentId, '', owner)).status).toBe(403);
    expect((await list('agt_unknown', '', owner)).status).toBe(404);
    expect((await list(tenant.agentId, '', await exchange(tenant.keys.outsider))).status).toBe(403);
    expect((await list(tenant.agentId, '', await exchange(other.keys.owner), other.agentId)).status).toBe(403);
    expect((await call('GET', `/api/agents/${tenant.agentId}/memories`, { token: member })).status).toBe(422);
    expect((await call('GET', `/api/agents/${tenant.agentId}/memories`, { agentId: tenant.agentId })).status).toBe(401);
  });

  it('refuses guests with 403, even on a customer-facing agent they may chat with', async () => {
    const org = await createGuestTenant();
    const guest = await exchange(org.guestKey);
    const res = await list(org.agentId, '', guest, org.agentId);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/Guests/);
  });

  it("answers 422 for a garbage cursor, another agent's cursor, or a bad limit", async () => {
    const garbage = await list(tenant.agentId, '?cursor=not-a-cursor');
    expect(garbage.status).toBe(422);
    expect(((await garbage.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual(['query', 'cursor']);
    const page = (await (await list(tenant.agentId, '?limit=1')).json()) as { next_cursor: string };
    expect((await list(tenant.privateAgentId, `?cursor=${page.next_cursor}`, owner)).status).toBe(422);
    expect((await list(tenant.agentId, '?limit=201')).status).toBe(422);
    expect((await list(tenant.agentId, '?limit=0')).status).toBe(422);
  });
});
