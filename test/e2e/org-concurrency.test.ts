import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyFile, parseApplyFile } from '../../src/admin/apply.ts';
import { listOrgs } from '../../src/admin/orgs.ts';
import { endAbandonedRuns } from '../../src/api/services/abandoned-runs.ts';
import { createLogger } from '../../src/logger.ts';
import { slotFreedSignal } from '../../src/workflows/run-messages.ts';
import { call, exchange } from '../support/http.ts';
import { eventually } from '../support/eventually.ts';
import {
  answer,
  expectReplays,
  runStatus,
  startBackgroundRun,
  temporalClient,
  waitForPending,
  waitForStatus,
  type Caller,
} from '../support/runs.ts';
import { createTenant, testDb } from '../support/tenant.ts';

interface EventRecord {
  event_name: string;
  payload: { type: string; name?: string; data?: Record<string, unknown> };
}

const askText = {
  messages: [
    {
      role: 'user',
      content: `Please help.\n/tool request_user_input ${JSON.stringify({ input_type: 'text', prompt: 'Your name?' })}`,
    },
  ],
};

let member: Caller;
let owner: string;
let orgName: string;

beforeAll(async () => {
  const tenant = await createTenant();
  member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
  owner = await exchange(tenant.keys.owner);
  orgName = (await testDb().org.findUniqueOrThrow({ where: { id: tenant.orgId } })).name;
  const applied = await applyFile(testDb(), parseApplyFile({ orgs: [{ name: orgName, max_concurrent_runs: 1 }] }));
  expect(applied.changes).toEqual([`max_concurrent_runs of org "${orgName}": unlimited → 1`]);
  expect((await listOrgs(testDb())).find((o) => o.id === tenant.orgId)).toMatchObject({ max_concurrent_runs: 1 });
});

async function eventsOf(runId: string): Promise<EventRecord[]> {
  const res = await call('GET', `/api/runs/${runId}/events?limit=1000`, {
    token: member.token,
    agentId: member.agentId,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { events: EventRecord[] }).events;
}

/** The places in the org's queue a run reported, in order. */
const queuedPlaces = (events: Awaited<ReturnType<typeof eventsOf>>) =>
  events
    .filter((e) => e.payload.name === 'SYSTEM_STATUS' && e.payload.data?.status === 'queued')
    .map((e) => e.payload.data?.position);

/** The run's SYSTEM_STATUS `queued` event, once it is stored. */
function queuedEvent(runId: string): Promise<Record<string, unknown>> {
  return eventually(`run ${runId} to be queued`, async () => {
    const queued = (await eventsOf(runId)).find(
      (e) => e.payload.name === 'SYSTEM_STATUS' && e.payload.data?.status === 'queued',
    );
    expect(queued).toBeDefined();
    return queued!.payload.data!;
  });
}

async function answerWith(taskId: string, value: string): Promise<void> {
  const pending = await waitForPending(member, taskId);
  const res = await answer(member, taskId, {
    request_id: pending.request_id,
    run_id: pending.run_id,
    input_type: 'text',
    value,
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

describe("an org's limit of concurrent runs (max_concurrent_runs: 1)", () => {
  it('accepts every run; those over the limit wait pending, queued, and start in order as slots free; a waiting run can be cancelled', async () => {
    const first = await startBackgroundRun(member, askText);
    await waitForPending(member, first.taskId);

    // The first run waits for a human and keeps its slot: the others are accepted and wait their turn.
    const second = await startBackgroundRun(member, askText);
    expect(await queuedEvent(second.runId)).toEqual({
      status: 'queued',
      reason: 'org_concurrency_limit',
      limit: 1,
      position: 1,
    });
    const third = await startBackgroundRun(member, askText);
    expect(await queuedEvent(third.runId)).toMatchObject({ status: 'queued', position: 2 });
    expect((await runStatus(member, second.taskId)).run).toMatchObject({ id: second.runId, status: 'pending' });
    expect((await runStatus(member, third.taskId)).run).toMatchObject({ id: third.runId, status: 'pending' });

    // The first run's end frees its slot: the second starts (and asks), the third still waits.
    await answerWith(first.taskId, 'Ada');
    await waitForStatus(member, first.taskId, 'completed');
    await waitForPending(member, second.taskId);
    expect((await runStatus(member, third.taskId)).run?.status).toBe('pending');
    // The third reports its new place at its next check (its poll; here the signal a poll stands for).
    await (await temporalClient()).workflow.getHandle(third.runId).signal(slotFreedSignal);
    await eventually('the third run to report place 1', async () =>
      expect(queuedPlaces(await eventsOf(third.runId))).toEqual([2, 1]),
    );

    // A waiting run is cancelled like any other, without ever taking a slot.
    const cancel = await call('POST', `/api/tasks/${third.taskId}/cancel`, {
      token: member.token,
      agentId: member.agentId,
    });
    expect(cancel.status, await cancel.clone().text()).toBe(200);
    await waitForStatus(member, third.taskId, 'cancelled');
    expect((await eventsOf(third.runId)).map((e) => e.event_name)).toEqual([
      'RUN_STARTED',
      'STATE_SNAPSHOT',
      'SYSTEM_STATUS',
      'SYSTEM_STATUS',
      'STOPPING',
      'USAGE',
      'STATE_DELTA',
      'RUN_ERROR',
    ]);

    // A fourth run is admitted when the second ends: nothing waits behind a cancelled run.
    const fourth = await startBackgroundRun(member, askText);
    await queuedEvent(fourth.runId);
    await answerWith(second.taskId, 'Grace');
    await waitForStatus(member, second.taskId, 'completed');
    await answerWith(fourth.taskId, 'Linus');
    await waitForStatus(member, fourth.taskId, 'completed');

    await expectReplays(second.runId, 'queued-then-admitted');
    await expectReplays(third.runId, 'cancelled-while-queued');
  });
});

describe('a run whose workflow is terminated in Temporal (an operator in the Web UI)', () => {
  it('ends failed with a RUN_ERROR that says so, its question cancelled, and its slot goes to the next waiting run', async () => {
    const held = await startBackgroundRun(member, askText);
    const pending = await waitForPending(member, held.taskId);
    const next = await startBackgroundRun(member, askText);
    await queuedEvent(next.runId);

    await (await temporalClient()).workflow.getHandle(held.runId).terminate('operator test');
    await waitForStatus(member, held.taskId, 'failed', 30_000);
    const events = await eventsOf(held.runId);
    expect(events.at(-1)?.payload).toMatchObject({
      type: 'RUN_ERROR',
      code: 'EXECUTION_ERROR',
      message: "The run's workflow was terminated in Temporal before the run ended",
    });
    expect(events.filter((e) => e.event_name === 'RUN_ERROR')).toHaveLength(1);
    const question = await testDb().inputRequest.findUniqueOrThrow({ where: { id: pending.request_id } });
    expect(question.status).toBe('cancelled');
    const late = await answer(member, held.taskId, {
      request_id: pending.request_id,
      run_id: held.runId,
      input_type: 'text',
      value: 'too late',
    });
    expect(late.status).toBeGreaterThanOrEqual(400);

    // The freed slot admits the waiting run, which asks its own question and completes.
    await answerWith(next.taskId, 'Barbara');
    await waitForStatus(member, next.taskId, 'completed');
  });
});

describe('a run whose workflow is reset in Temporal (the Web UI\'s "Reset")', () => {
  it('goes on in the new run: the terminated one it replaced is no reason to end it', async () => {
    const run = await startBackgroundRun(member, askText);
    await waitForPending(member, run.taskId);
    const temporal = await temporalClient();
    const handle = temporal.workflow.getHandle(run.runId);
    const { events } = await handle.fetchHistory();
    const lastTask = events!.findLast((e) => e.workflowTaskCompletedEventAttributes)!;
    const closedBefore = new Date(Date.now() - 1000);
    const { runId: newRun } = await temporal.workflowService.resetWorkflowExecution({
      namespace: 'default',
      workflowExecution: { workflowId: run.runId },
      workflowTaskFinishEventId: lastTask.eventId,
      requestId: randomUUID(),
      reason: 'operator test',
    });
    expect(await handle.describe()).toMatchObject({ runId: newRun, status: { name: 'RUNNING' } });
    // The run it replaced is in visibility as terminated: what the reconciler looks for.
    await eventually('the replaced run to be listed as terminated', async () => {
      const query = `WorkflowId = '${run.runId}' AND ExecutionStatus = 'Terminated'`;
      const listed: string[] = [];
      for await (const w of temporal.workflow.list({ query })) listed.push(w.runId);
      expect(listed).toHaveLength(1);
    });
    const logger = createLogger('test', 'silent');
    expect(await endAbandonedRuns({ db: testDb(), temporal, logger }, closedBefore)).toBe(0);
    expect((await runStatus(member, run.taskId)).run?.status).not.toBe('failed');
    // Still the service's to control: cancelled through the API, it ends cancelled (and frees its slot).
    const cancel = await call('POST', `/api/tasks/${run.taskId}/cancel`, {
      token: member.token,
      agentId: member.agentId,
    });
    expect(cancel.status, await cancel.clone().text()).toBe(200);
    await waitForStatus(member, run.taskId, 'cancelled');
  });
});

describe("an org's places for run starts in one api (RUN_STARTS_IN_FLIGHT_PER_ORG, 4)", () => {
  // A run-start request holds one of its org's places while it is authenticated; a refused one must give it back,
  // or an org's fifth refused start would leave its next starts waiting for ever.
  it('are given back by starts refused after authentication, so the next start goes on', async () => {
    const stranger = { token: member.token, agentId: `agent_${randomUUID().replaceAll('-', '')}` };
    for (let i = 0; i < 6; i++) {
      const res = await call('POST', '/api/run/async', { ...stranger, body: askText });
      expect(res.status).toBe(404);
    }
    const started = await call('POST', '/api/run/async', {
      token: member.token,
      agentId: member.agentId,
      body: askText,
    });
    expect(started.status).toBe(202);
    const { task_id } = (await started.json()) as { task_id: string };
    const cancel = await call('POST', `/api/tasks/${task_id}/cancel`, { token: member.token, agentId: member.agentId });
    expect(cancel.status, await cancel.clone().text()).toBe(200);
    await waitForStatus(member, task_id, 'cancelled');
  });
});

describe('setting the limit', () => {
  it("is the operator's: the org's admins see it in GET /api/admin/org and cannot set it with POST /api/admin/apply", async () => {
    const config = await call('GET', '/api/admin/org', { token: owner });
    expect(((await config.json()) as { max_concurrent_runs: unknown }).max_concurrent_runs).toBe(1);
    const refused = await call('POST', '/api/admin/apply', { token: owner, body: { max_concurrent_runs: 100 } });
    expect(refused.status).toBe(422);
    // null lifts it; applying the same again changes nothing.
    const lift = () => applyFile(testDb(), parseApplyFile({ orgs: [{ name: orgName, max_concurrent_runs: null }] }));
    expect((await lift()).changes).toEqual([`max_concurrent_runs of org "${orgName}": 1 → unlimited`]);
    expect((await lift()).changes).toEqual([]);
  });
});
