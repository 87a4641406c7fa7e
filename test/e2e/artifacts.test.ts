import { beforeAll, describe, expect, it } from 'vitest';
import { call, exchange, readSse, withoutHeartbeats } from '../support/http.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';
import { runTool, startQuietRun, toolOutput, type ToolScope } from '../support/tools.ts';

interface EventRecord {
  id: string;
  event_type: string;
  event_name: string;
  payload: { type: string; name?: string; data?: Record<string, unknown> };
}

const table = {
  columns: ['city', 'population'],
  rows: [
    ['Berlin', 3.7],
    ['Paris', 2.1],
  ],
};

describe('artifact tools and GET /api/tasks/{task_id}/artifacts', () => {
  let tenant: Tenant;
  let member: string;
  let owner: string;
  let scope: ToolScope;
  let otherTask: ToolScope;

  beforeAll(async () => {
    tenant = await createTenant();
    [member, owner] = await Promise.all([exchange(tenant.keys.member), exchange(tenant.keys.owner)]);
    scope = await startQuietRun(member, tenant.agentId, tenant.orgId);
    otherTask = await startQuietRun(member, tenant.agentId, tenant.orgId);
  });

  /** The ARTIFACT_* events of a run, in log order, read over HTTP like a client would. */
  async function artifactEvents(runId: string): Promise<EventRecord[]> {
    const res = await call('GET', `/api/runs/${runId}/events?limit=1000`, { token: member, agentId: tenant.agentId });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { events: EventRecord[] };
    return page.events.filter((e) => e.event_name.startsWith('ARTIFACT_'));
  }
  const names = (events: EventRecord[]) => events.map((e) => e.event_name);
  const seqOf = (e: EventRecord) => Number(e.id.split(':').at(-1));

  it("create → update → revise writes the lifecycle to the run's event log in order, once per tool call", async () => {
    const created = await toolOutput<{ artifact_id: string; version: number }>(
      scope,
      'create_artifact',
      { kind: 'table', title: 'Cities', content: table },
      'call_create',
    );
    expect(created).toEqual({
      artifact_id: expect.stringMatching(/^art_[0-9a-f]{32}$/),
      version: 1,
      status: 'completed',
    });
    // An activity retry of the same call: same artifact, no second row, no repeated events.
    expect(
      await toolOutput(scope, 'create_artifact', { kind: 'table', title: 'Cities', content: table }, 'call_create'),
    ).toEqual(created);
    expect(await testDb().artifact.count({ where: { taskId: scope.taskId } })).toBe(1);

    const id = created.artifact_id;
    expect(await toolOutput(scope, 'update_artifact', { artifact_id: id, title: 'Big cities' })).toEqual({
      artifact_id: id,
      version: 1,
      status: 'completed',
    });
    const revisedContent = { ...table, rows: [...table.rows, ['Rome', 2.8]] };
    const revise = { artifact_id: id, mode: 'revise', content: revisedContent };
    expect(await toolOutput(scope, 'update_artifact', revise, 'call_revise')).toEqual({
      artifact_id: id,
      version: 2,
      status: 'completed',
    });
    expect(await toolOutput(scope, 'update_artifact', revise, 'call_revise')).toEqual({
      artifact_id: id,
      version: 2,
      status: 'completed',
    });

    const events = await artifactEvents(scope.runId);
    expect(names(events)).toEqual([
      'ARTIFACT_CREATED',
      'ARTIFACT_COMPLETED',
      'ARTIFACT_UPDATED',
      'ARTIFACT_COMPLETED',
      'ARTIFACT_REVISED',
      'ARTIFACT_COMPLETED',
    ]);
    expect(events.map(seqOf)).toEqual([...events.map(seqOf)].sort((a, b) => a - b));
    expect(events.every((e) => e.event_type === 'CUSTOM' && e.payload.type === 'CUSTOM')).toBe(true);
    const url = `/api/tasks/${scope.taskId}/artifacts/${id}`;
    expect(events[0]!.payload.data).toEqual({
      artifact_id: id,
      kind: 'table',
      title: 'Cities',
      version: 1,
      status: 'draft',
      size_bytes: JSON.stringify(table).length,
      url,
      content: table,
    });
    expect(events[1]!.payload.data).toEqual({ artifact_id: id, version: 1, status: 'completed' });
    expect(events[2]!.payload.data).toMatchObject({
      artifact_id: id,
      title: 'Big cities',
      version: 1,
      changed: ['title'],
    });
    expect(events[4]!.payload.data).toMatchObject({
      artifact_id: id,
      version: 2,
      previous_version: 1,
      changed: ['content'],
      content: revisedContent,
    });
    expect(events[5]!.payload.data).toEqual({ artifact_id: id, version: 2, status: 'completed' });

    const row = await testDb().artifact.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({
      runId: scope.runId,
      taskId: scope.taskId,
      kind: 'table',
      title: 'Big cities',
      version: 2,
      status: 'completed',
      content: revisedContent,
    });
  });

  it('accepts the documented content of every kind and drops keys it does not know', async () => {
    const own = await startQuietRun(member, tenant.agentId, tenant.orgId);
    const contents = {
      chart: {
        chart_type: 'line',
        data: [
          { m: 'Jan', a: 1, b: null },
          { m: 'Feb', a: 2, b: 3 },
        ],
        x: 'm',
        y: ['a', 'b'],
      },
      image: { mime_type: 'image/png', data_base64: 'iVBORw0KGgo=', alt: 'dot' },
      svg: { mime_type: 'image/svg+xml', svg: '<svg xmlns="http://www.w3.org/2000/svg"></svg>' },
      code: { language: 'ts', source: 'let x = 1;', filename: 'x.ts', extra: 'dropped' },
    };
    for (const [name, content] of Object.entries(contents)) {
      const kind = name === 'svg' ? 'image' : name;
      const made = await toolOutput<{ artifact_id: string }>(own, 'create_artifact', { kind, title: name, content });
      const row = await testDb().artifact.findUniqueOrThrow({ where: { id: made.artifact_id } });
      expect(row.content).toEqual(
        name === 'code' ? { language: 'ts', source: 'let x = 1;', filename: 'x.ts' } : content,
      );
    }
    const notBase64 = await runTool(own, 'create_artifact', {
      kind: 'image',
      title: 'x',
      content: { mime_type: 'image/png', data_base64: 'not base64!' },
    });
    expect(notBase64).toMatchObject({ ok: false, error: { code: 'INVALID_ARTIFACT_CONTENT' } });
  });

  it('reports bad content as ARTIFACT_ERROR and a tool error, and stores nothing', async () => {
    const before = (await artifactEvents(scope.runId)).length;
    const bad = await runTool(scope, 'create_artifact', {
      kind: 'table',
      title: 'Broken',
      content: { columns: ['a', 'b'], rows: [[1]] },
    });
    expect(bad).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARTIFACT_CONTENT', message: expect.stringContaining('content.rows') },
    });
    const chart = await runTool(scope, 'create_artifact', {
      kind: 'chart',
      title: 'No y',
      content: { chart_type: 'bar', data: [{ m: 'Jan', v: 'x' }], x: 'm', y: 'v' },
    });
    expect(chart).toMatchObject({ ok: false, error: { code: 'INVALID_ARTIFACT_CONTENT' } });
    expect(await runTool(scope, 'create_artifact', { kind: 'movie', title: 'x', content: {} })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENTS' },
    });

    const doc = await toolOutput<{ artifact_id: string }>(scope, 'create_artifact', {
      kind: 'document',
      title: 'Notes',
      content: { format: 'markdown', body: '# Hi' },
    });
    const badUpdate = await runTool(scope, 'update_artifact', {
      artifact_id: doc.artifact_id,
      content: { format: 'pdf', body: 'x' },
    });
    expect(badUpdate).toMatchObject({ ok: false, error: { code: 'INVALID_ARTIFACT_CONTENT' } });
    expect(await testDb().artifact.findUniqueOrThrow({ where: { id: doc.artifact_id } })).toMatchObject({
      version: 1,
      content: { format: 'markdown', body: '# Hi' },
    });

    const events = (await artifactEvents(scope.runId)).slice(before);
    expect(names(events)).toEqual([
      'ARTIFACT_ERROR',
      'ARTIFACT_ERROR',
      'ARTIFACT_CREATED',
      'ARTIFACT_COMPLETED',
      'ARTIFACT_ERROR',
    ]);
    expect(events[0]!.payload.data).toMatchObject({
      artifact_id: null,
      kind: 'table',
      title: 'Broken',
      code: 'INVALID_ARTIFACT_CONTENT',
    });
    expect(events[4]!.payload.data).toMatchObject({
      artifact_id: doc.artifact_id,
      version: 1,
      code: 'INVALID_ARTIFACT_CONTENT',
    });
    expect(await testDb().artifact.count({ where: { title: { in: ['Broken', 'No y'] } } })).toBe(0);
  });

  it('sends large content by reference with a progress event, and refuses content over 1 MiB', async () => {
    const body = 'lorem ipsum '.repeat(8000);
    const big = await toolOutput<{ artifact_id: string }>(otherTask, 'create_artifact', {
      kind: 'code',
      title: 'Big',
      content: { language: 'text', source: body },
    });
    const events = await artifactEvents(otherTask.runId);
    expect(names(events)).toEqual(['ARTIFACT_CREATED', 'ARTIFACT_PROGRESS', 'ARTIFACT_COMPLETED']);
    expect(events[0]!.payload.data).not.toHaveProperty('content');
    expect(events[1]!.payload.data).toMatchObject({ artifact_id: big.artifact_id, version: 1, percent: 100 });

    const huge = await runTool(otherTask, 'create_artifact', {
      kind: 'document',
      title: 'Huge',
      content: { format: 'text', body: 'x'.repeat(1024 * 1024) },
    });
    expect(huge).toMatchObject({ ok: false, error: { code: 'ARTIFACT_TOO_LARGE' } });
    expect(names(await artifactEvents(otherTask.runId)).at(-1)).toBe('ARTIFACT_ERROR');
  });

  it('refuses to update an artifact of another task as if it did not exist, without an event', async () => {
    const foreign = await toolOutput<{ artifact_id: string }>(otherTask, 'create_artifact', {
      kind: 'diagram',
      title: 'Flow',
      content: { syntax: 'mermaid', source: 'graph TD; A-->B' },
    });
    const before = (await artifactEvents(scope.runId)).length;
    const outcome = await runTool(scope, 'update_artifact', { artifact_id: foreign.artifact_id, title: 'Hijacked' });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ARTIFACT_NOT_FOUND' } });
    expect(await runTool(scope, 'update_artifact', { artifact_id: 'art_missing', title: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'ARTIFACT_NOT_FOUND' },
    });
    expect((await artifactEvents(scope.runId)).length).toBe(before);
    expect((await testDb().artifact.findUniqueOrThrow({ where: { id: foreign.artifact_id } })).title).toBe('Flow');
  });

  it("through a real run: the model's create_artifact call streams its lifecycle before the tool result", async () => {
    const directive = `/tool create_artifact ${JSON.stringify({ kind: 'document', title: 'From the model', content: { format: 'text', body: 'hello' } })}`;
    const res = await call('POST', '/api/run', {
      token: member,
      agentId: tenant.agentId,
      body: { messages: [{ role: 'user', content: directive }] },
    });
    const events = withoutHeartbeats(await readSse(res)).map((f) => f.data);
    const at = (pred: (e: Record<string, unknown>) => boolean) => events.findIndex(pred);
    const created = at((e) => e.name === 'ARTIFACT_CREATED');
    const completed = at((e) => e.name === 'ARTIFACT_COMPLETED');
    const result = at((e) => e.type === 'TOOL_CALL_RESULT');
    expect(created).toBeGreaterThan(at((e) => e.type === 'TOOL_CALL_END'));
    expect(completed).toBeGreaterThan(created);
    expect(result).toBeGreaterThan(completed);
    expect(events.at(-1)!.type).toBe('RUN_FINISHED');
    const { artifact_id } = JSON.parse(events[result]!.content as string) as { artifact_id: string };
    const taskId = events[0]!.thread_id as string;
    const fetched = await call('GET', `/api/tasks/${taskId}/artifacts/${artifact_id}`, {
      token: member,
      agentId: tenant.agentId,
    });
    expect(await fetched.json()).toMatchObject({
      id: artifact_id,
      task_id: taskId,
      run_id: events[0]!.run_id,
      title: 'From the model',
      content: { format: 'text', body: 'hello' },
    });
  });

  describe('reading', () => {
    const get = (path: string, token = member) => call('GET', path, { token, agentId: tenant.agentId });

    it('lists newest first without content, with content on request, filtered by kind, paged by cursor', async () => {
      const res = await get(`/api/tasks/${scope.taskId}/artifacts`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as {
        task_id: string;
        artifacts: Record<string, unknown>[];
        next_cursor: string | null;
        count: number;
      };
      expect(page).toMatchObject({ task_id: scope.taskId, count: 2, next_cursor: null });
      expect(page.artifacts.map((a) => a.kind)).toEqual(['document', 'table']);
      expect(page.artifacts[1]).toEqual({
        id: expect.stringMatching(/^art_/),
        task_id: scope.taskId,
        run_id: scope.runId,
        kind: 'table',
        title: 'Big cities',
        version: 2,
        status: 'completed',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });

      const withContent = (await (
        await get(`/api/tasks/${scope.taskId}/artifacts?include_content=true&kind=document`)
      ).json()) as { artifacts: { content: unknown }[] };
      expect(withContent.artifacts.map((a) => a.content)).toEqual([{ format: 'markdown', body: '# Hi' }]);

      const first = (await (await get(`/api/tasks/${scope.taskId}/artifacts?limit=1`)).json()) as {
        artifacts: { kind: string }[];
        next_cursor: string;
      };
      expect(first.artifacts.map((a) => a.kind)).toEqual(['document']);
      const second = (await (
        await get(`/api/tasks/${scope.taskId}/artifacts?limit=1&cursor=${first.next_cursor}`)
      ).json()) as { artifacts: { kind: string }[]; next_cursor: null };
      expect(second.artifacts.map((a) => a.kind)).toEqual(['table']);
      expect(second.next_cursor).toBeNull();

      // A cursor of one task's list is refused on another's; so is garbage.
      expect((await get(`/api/tasks/${otherTask.taskId}/artifacts?cursor=${first.next_cursor}`)).status).toBe(422);
      expect((await get(`/api/tasks/${scope.taskId}/artifacts?cursor=%%%`)).status).toBe(422);
      expect((await get(`/api/tasks/${scope.taskId}/artifacts?limit=500`)).status).toBe(422);
    });

    it('returns one artifact with its full current content; the auth_session cookie works too', async () => {
      const row = await testDb().artifact.findFirstOrThrow({ where: { taskId: scope.taskId, kind: 'table' } });
      const res = await call('GET', `/api/tasks/${scope.taskId}/artifacts/${row.id}`, {
        agentId: tenant.agentId,
        headers: { Cookie: `auth_session=${member}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        id: row.id,
        version: 2,
        title: 'Big cities',
        content: { columns: table.columns, rows: [...table.rows, ['Rome', 2.8]] },
      });
      // Another task's artifact through this task's path is unknown here.
      const foreign = await testDb().artifact.findFirstOrThrow({ where: { taskId: otherTask.taskId } });
      expect((await get(`/api/tasks/${scope.taskId}/artifacts/${foreign.id}`)).status).toBe(404);
      expect((await get(`/api/tasks/${scope.taskId}/artifacts/art_unknown`)).status).toBe(404);
    });

    it("is visible exactly like the task: 403 for another user's or org's task, 404 for an unknown one", async () => {
      const ownersTask = await startQuietRun(owner, tenant.agentId, tenant.orgId);
      expect((await get(`/api/tasks/${ownersTask.taskId}/artifacts`)).status).toBe(403);
      expect((await get(`/api/tasks/${scope.taskId}/artifacts`, owner)).status).toBe(200);
      expect((await get('/api/tasks/task_unknown/artifacts')).status).toBe(404);
      expect((await get(`/api/tasks/${scope.taskId}/artifacts`, await exchange(tenant.keys.outsider))).status).toBe(
        403,
      );
      const other = await createTenant();
      const stranger = await call('GET', `/api/tasks/${scope.taskId}/artifacts`, {
        token: await exchange(other.keys.owner),
        agentId: other.agentId,
      });
      expect(stranger.status).toBe(403);
      expect((await call('GET', `/api/tasks/${scope.taskId}/artifacts`, { agentId: tenant.agentId })).status).toBe(401);
    });
  });
});
