import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyFile, parseApplyFile } from '../../src/admin/apply.ts';
import { expressPath } from '../../src/api/route.ts';
import { apiUrl, call, exchange } from '../support/http.ts';
import { startBackgroundRun, waitForPending, waitForStatus } from '../support/runs.ts';
import { createTenant, testDb } from '../support/tenant.ts';
import { createWidgetTenant, widgetSession } from '../support/widget.ts';

/** The origin of the widget keys below; widget operations are attempted as their visitors. */
const SITE = 'http://bola.example.test';

/**
 * Broken object-level authorization: every operation of the OpenAPI document that takes
 * an id (in the path, or `task_id` in the body) is called with ids of user A1's objects,
 * by another org and by another member of A1's org. None may answer 2xx or show A1's data;
 * the spec answers 403 or 404 (existence hidden as 404). The routes come from the served
 * document, so a new route is covered, or fails here until this test knows its ids.
 */
interface Operation {
  method: string;
  path: string;
  operationId: string;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
}

/** Ids a member's own objects carry; agent and approval ids are shared by everyone granted the agent. */
const USER_OWNED = new Set(['task_id', 'run_id', 'artifact_id']);
const SECRET = `bola-secret-${randomBytes(4).toString('hex')}`;

/** A body each operation accepts, so validation (422) does not answer before access control. */
function bodyFor(op: Operation, ids: Record<string, string>): unknown {
  const bodies: Record<string, unknown> = {
    commentOnRun: { content: 'steer' },
    answerInput: { request_id: 'req_x', run_id: ids.run_id, input_type: 'text', cancelled: true },
    respondToApproval: { decision: 'reject', feedback: 'no' },
    startRun: { messages: [{ role: 'user', content: 'hi' }], task_id: ids.task_id, stream: false },
    startRunAsync: { messages: [{ role: 'user', content: 'hi' }], task_id: ids.task_id },
  };
  // A widget operation takes the body of the operation it serves to visitors (widgetStartRun: startRun).
  const served = op.operationId.replace(/^widget(\w)/, (_m, c: string) => c.toLowerCase());
  if (served in bodies) return bodies[served];
  return op.requestBody ? {} : undefined;
}

/** A webhook receiver that takes every delivery (A's org subscribes, so one of its deliveries has an id to try). */
const receiver = {
  server: createServer((_req, res) => res.writeHead(200).end()),
  get url() {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  },
};

afterAll(() => new Promise<void>((resolve) => receiver.server.close(() => resolve())));

describe('object-level authorization (BOLA matrix)', () => {
  let operations: Operation[];
  let ids: Record<string, string>;
  let a1: { token: string; agentId: string };
  /** A1's runs: the finished one, then the one waiting on its approval (newest). */
  let a1Runs: { done: string; waiting: string };
  let agentA: string;
  let a2: string;
  let outsider: { token: string; agentId: string; visitor: string };
  /** A widget visitor of A's org (its customer-facing agent), for the widget operations. */
  let sameOrgVisitor: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    const document = (await (await fetch(`${apiUrl()}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
    };
    operations = Object.entries(document.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })),
    );

    const tag = randomBytes(4).toString('hex');
    const email = (who: string) => `${who}-${tag}@example.test`;
    const org = (
      await applyFile(
        testDb(),
        parseApplyFile({
          orgs: [
            {
              name: `bola-${tag}`,
              credits: 100_000,
              users: ['a1', 'a2'].map((who) => ({ email: email(who), role: 'member' })),
              agents: [
                {
                  name: 'agent',
                  settings: { approval_required_tools: ['save_memory'] },
                  access: [email('a1'), email('a2')],
                },
                { name: 'support', customer_facing: true },
              ],
              keys: ['a1', 'a2'].map((who) => ({ user: email(who), name: 'bola' })),
              widget_keys: [{ name: 'site', agent: 'support', origins: [SITE] }],
              webhooks: [{ name: 'bola', url: receiver.url, events: ['run.completed'] }],
            },
          ],
        }),
      )
    ).orgs[0]!;
    agentA = org.agents['agent']!;
    const keyOf = (who: string) => org.keys.find((k) => k.user === email(who))!.key!;
    a1 = { token: await exchange(keyOf('a1')), agentId: agentA };
    a2 = await exchange(keyOf('a2'));
    const other = await createTenant();
    const otherWidget = await createWidgetTenant([SITE]);
    outsider = {
      token: await exchange(other.keys.owner),
      agentId: other.agentId,
      visitor: (await widgetSession(otherWidget.key, SITE)).visitor_token,
    };
    sameOrgVisitor = (await widgetSession(org.widget_keys[0]!.key!, SITE)).visitor_token;

    // A1's objects: a finished run with an artifact, and a run waiting on an approval.
    const table = JSON.stringify({ kind: 'table', title: SECRET, content: { columns: [SECRET], rows: [[SECRET]] } });
    const done = await startBackgroundRun(a1, {
      messages: [{ role: 'user', content: `${SECRET}\n/tool create_artifact ${table}` }],
    });
    await waitForStatus(a1, done.taskId, 'completed');
    const artifacts = (await (
      await call('GET', `/api/tasks/${done.taskId}/artifacts`, { token: a1.token, agentId: agentA })
    ).json()) as { artifacts: { id: string }[] };
    const waiting = await startBackgroundRun(a1, {
      messages: [{ role: 'user', content: `/tool save_memory {"content":"${SECRET}"}` }],
    });
    const pending = await waitForPending(a1, waiting.taskId);
    const delivery = await testDb().webhookDelivery.findFirstOrThrow({ where: { runId: done.runId } });
    ids = {
      task_id: done.taskId,
      run_id: done.runId,
      artifact_id: artifacts.artifacts[0]!.id,
      approval_id: String(pending.approval_id),
      agent_id: agentA,
      delivery_id: delivery.id,
      key_id: org.keys.find((k) => k.user === email('a1'))!.id,
    };
    // A1 itself may use every id (the control: the ids are real).
    expect((await call('GET', `/api/tasks/${done.taskId}`, { token: a1.token, agentId: agentA })).status).toBe(200);
    expect(pending.approval_id).toBeTruthy();
    a1Runs = { done: done.runId, waiting: waiting.runId };
  });

  /**
   * The operations that take an id, DELETE last (a leak there would hide the other checks).
   * Inbound flow triggers (/api/v1/flows/…) are left out: no caller identity reaches them, each
   * request is authorized by its flow's signature (test/e2e/flows.test.ts refuses unsigned ones).
   * Org secrets (/api/admin/secrets/{name}) are named within the caller's own org, so another org's
   * PUT makes a secret of its own: test/e2e/security.test.ts checks that it sees none of A's.
   */
  function idBearing(filter: (param: string) => boolean) {
    return operations
      .filter((op) => !op.path.startsWith('/api/v1/flows/') && !op.path.startsWith('/api/admin/secrets/'))
      .map((op) => {
        const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
        const bodyTakesTask = Boolean(op.requestBody?.content['application/json']?.schema.properties?.task_id);
        return { op, params: bodyTakesTask ? [...params, 'task_id'] : params };
      })
      .filter(({ params }) => params.some(filter))
      .sort((a, b) => Number(a.op.method === 'DELETE') - Number(b.op.method === 'DELETE'));
  }

  /** Calls `op` with A1's ids as `token` through `agentId`; a widget operation as the visitor of `visitorToken`. */
  async function attempt(op: Operation, token: string, agentId: string, visitorToken: string) {
    let path = op.path;
    for (const [, name] of op.path.matchAll(/\{(\w+)\}/g)) {
      expect(ids[name!], `no id for {${name}} of ${op.operationId}: teach this test that id`).toBeDefined();
      path = path.replace(`{${name}}`, ids[name!]!);
    }
    const widget = op.path.startsWith('/api/v1/widget/');
    const res = widget
      ? await call(op.method, path, {
          token: visitorToken,
          headers: { Origin: SITE },
          body: bodyFor(op, ids),
          signal: AbortSignal.timeout(15_000),
        })
      : await call(op.method, path, { token, agentId, body: bodyFor(op, ids), signal: AbortSignal.timeout(15_000) });
    const text = await res.text().catch(() => '');
    return { status: res.status, text, label: `${op.method} ${expressPath(op.path)} (${op.operationId})` };
  }

  it('covers the id-bearing routes of the document', () => {
    const covered = idBearing(() => true).map(({ op }) => op.operationId);
    expect(covered.length).toBeGreaterThanOrEqual(15);
    for (const id of ['getTask', 'deleteTask', 'getTaskArtifact', 'listRunEvents', 'respondToApproval', 'startRun'])
      expect(covered).toContain(id);
  });

  it("another org gets 403/404 for every route, through its own agent and through A's", async () => {
    for (const agentId of [outsider.agentId, agentA]) {
      for (const { op } of idBearing(() => true)) {
        const { status, text, label } = await attempt(op, outsider.token, agentId, outsider.visitor);
        expect(
          [403, 404],
          `${label} as another org via ${agentId === agentA ? "A's" : 'its own'} agent: ${text.slice(0, 300)}`,
        ).toContain(status);
        expect(text, label).not.toContain(SECRET);
        expect(JSON.parse(text), label).toEqual({ detail: expect.any(String) });
      }
    }
  });

  it("another member of the same org gets 403/404 for every route on A1's tasks, runs and artifacts", async () => {
    for (const { op } of idBearing((p) => USER_OWNED.has(p))) {
      const { status, text, label } = await attempt(op, a2, agentA, sameOrgVisitor);
      expect([403, 404], `${label} as another member: ${text.slice(0, 300)}`).toContain(status);
      expect(text, label).not.toContain(SECRET);
    }
  });

  /** GET /api/runs takes no id, so the matrix above does not reach it: a list must not leak rows either. */
  it("GET /api/runs lists A1's runs to A1 only: not to another org, nor to another member of the agent", async () => {
    const list = async (token: string, query = '') => {
      const res = await call('GET', `/api/runs${query}`, { token });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      return JSON.parse(text) as {
        runs: { run_id: string; needs_you: boolean; user: { id: string } }[];
        next_cursor: string | null;
      };
    };
    const own = await list(a1.token);
    expect(own.runs.map((r) => r.run_id)).toEqual([a1Runs.waiting, a1Runs.done]);
    for (const token of [outsider.token, a2]) {
      const seen = await list(token, `?agent_id=${agentA}&user_id=${own.runs[0]!.user.id}`);
      expect(seen.runs).toEqual([]);
      expect(JSON.stringify(await list(token))).not.toContain(a1Runs.done);
      // A run's id alone (how the console resolves a linked run's agent) shows nothing either.
      expect((await list(token, `?run_id=${a1Runs.done}`)).runs).toEqual([]);
    }
    expect((await list(a1.token, `?run_id=${a1Runs.done}`)).runs.map((r) => r.run_id)).toEqual([a1Runs.done]);
    // The waiting run needs A1 (its approval is of A1's own task); a page of one continues to the other run.
    expect((await list(a1.token, '?status=needs_you')).runs.map((r) => [r.run_id, r.needs_you])).toEqual([
      [a1Runs.waiting, true],
    ]);
    const first = await list(a1.token, '?limit=1&status=completed,awaiting_approval');
    expect(first.runs.map((r) => r.run_id)).toEqual([a1Runs.waiting]);
    const next = await list(a1.token, `?limit=1&status=completed&status=awaiting_approval&cursor=${first.next_cursor}`);
    expect([next.runs.map((r) => r.run_id), next.next_cursor]).toEqual([[a1Runs.done], null]);
    // Source and time filters: both runs came through the API, none from a flow or after now.
    const ids1 = async (query: string) => (await list(a1.token, query)).runs.map((r) => r.run_id);
    expect(await ids1('?source=api')).toEqual([a1Runs.waiting, a1Runs.done]);
    expect(await ids1('?source=flow')).toEqual([]);
    expect(await ids1(`?until=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toHaveLength(2);
    expect(await ids1(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    // A1's cursor is no key to A1's list for anyone else.
    const replayed = await call('GET', `/api/runs?cursor=${first.next_cursor}`, { token: a2 });
    expect(replayed.status).toBe(422);
  });
});
