import { beforeAll, describe, expect, it } from 'vitest';
import { call, exchange } from '../support/http.ts';
import {
  answer,
  expectOneTerminal,
  expectReplays,
  readTaskStream,
  startBackgroundRun,
  types,
  waitForPending,
  type Caller,
} from '../support/runs.ts';
import { createTenant, testDb, type Tenant } from '../support/tenant.ts';

const remember = (...facts: string[]) => ({
  messages: [
    { role: 'user', content: facts.map((f) => `/tool save_memory ${JSON.stringify({ content: f })}`).join('\n') },
  ],
});

interface Approval {
  id: string;
  status: string;
  sensitive: boolean;
  kind: string;
  tool_name: string | null;
  request_id: string;
  run_id: string;
  details: Record<string, unknown>;
}

async function listApprovals(who: Caller, status?: string): Promise<Approval[]> {
  const res = await call('GET', `/api/approvals${status ? `?status=${status}` : ''}`, { token: who.token });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { approvals: Approval[]; count: number };
  expect(body.count).toBe(body.approvals.length);
  return body.approvals;
}

const respond = (who: Caller, id: string, body: Record<string, unknown>) =>
  call('POST', `/api/approvals/${id}/respond`, { token: who.token, body });

describe('action approval gates', () => {
  let tenant: Tenant;
  let owner: Caller;
  let member: Caller;

  beforeAll(async () => {
    tenant = await createTenant({ approval_required_tools: ['save_memory'] });
    owner = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
    member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
  });

  it('puts the run in awaiting_approval until approved, then runs the tool', async () => {
    const { taskId, runId } = await startBackgroundRun(member, remember('The sky is blue'));
    const pending = await waitForPending(member, taskId);
    expect(pending).toMatchObject({
      input_type: 'action_approval',
      action: { tool_name: 'save_memory', sensitive: false },
    });
    expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('awaiting_approval');
    const listed = (await listApprovals(member)).find((a) => a.run_id === runId)!;
    expect(listed).toMatchObject({
      status: 'pending',
      kind: 'action',
      tool_name: 'save_memory',
      request_id: pending.request_id,
      agent_name: 'agent',
      task_title: expect.stringContaining('/tool save_memory'),
      run_status: 'awaiting_approval',
      started_by: { id: tenant.users.member, visitor: false, email: expect.stringMatching(/^member-/) },
    });
    expect(await testDb().memory.count({ where: { agentId: tenant.agentId } })).toBe(0);

    const ok = await answer(member, taskId, {
      request_id: pending.request_id,
      run_id: runId,
      input_type: 'action_approval',
      approved: true,
    });
    expect(ok.status).toBe(200);
    const frames = await readTaskStream(member, taskId);
    const statuses = frames
      .filter((f) => f.data.type === 'STATE_DELTA' && JSON.stringify(f.data.delta).includes('run_status'))
      .map((f) => (f.data.delta as { value: string }[])[0]!.value);
    expect(statuses).toEqual(['executing', 'awaiting_approval', 'executing', 'completed']);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    expect(await testDb().memory.count({ where: { agentId: tenant.agentId } })).toBe(1);
    expect((await listApprovals(member, 'approved')).some((a) => a.run_id === runId)).toBe(true);
    await expectReplays(runId, 'action-approved');
  });

  it('tells the agent about a rejection through /approvals/respond; the run continues', async () => {
    const { taskId, runId } = await startBackgroundRun(member, remember('Rejected fact'));
    await waitForPending(member, taskId);
    const approval = (await listApprovals(owner)).find((a) => a.run_id === runId)!;
    const res = await respond(owner, approval.id, { decision: 'reject', feedback: 'not that one' });
    expect(await res.json()).toMatchObject({ success: true, status: 'rejected', approval_id: approval.id });
    const frames = await readTaskStream(member, taskId);
    const result = JSON.parse(frames.find((f) => f.data.type === 'TOOL_CALL_RESULT')!.data.content as string);
    expect(result).toEqual({ error: { code: 'REJECTED', message: 'The user rejected this action: not that one' } });
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    expect(await testDb().approval.findUniqueOrThrow({ where: { id: approval.id } })).toMatchObject({
      status: 'rejected',
      feedback: 'not that one',
    });
    expect((await respond(owner, approval.id, { decision: 'approve' })).status).toBe(409);
    await expectReplays(runId, 'action-rejected');
  });

  it('approve_run_scope approves the tool for the rest of the run only', async () => {
    const { taskId, runId } = await startBackgroundRun(member, remember('one', 'two'));
    const first = await waitForPending(member, taskId);
    await answer(member, taskId, {
      request_id: first.request_id,
      run_id: runId,
      input_type: 'action_approval',
      approved: true,
      approve_run_scope: true,
    });
    const frames = await readTaskStream(member, taskId);
    expect(frames.filter((f) => f.data.name === 'USER_INPUT_REQUIRED')).toHaveLength(1);
    expect(frames.filter((f) => f.data.type === 'TOOL_CALL_RESULT')).toHaveLength(2);
    const next = await startBackgroundRun(member, remember('three'));
    expect((await waitForPending(member, next.taskId)).input_type).toBe('action_approval');
    await answer(member, next.taskId, {
      request_id: (await waitForPending(member, next.taskId)).request_id,
      run_id: next.runId,
      input_type: 'action_approval',
      approved: false,
    });
    await readTaskStream(member, next.taskId);
  });

  it('approve_always records a standing grant that later runs reuse', async () => {
    const fresh = await createTenant({ approval_required_tools: ['save_memory'] });
    const who = { token: await exchange(fresh.keys.owner), agentId: fresh.agentId };
    const { taskId, runId } = await startBackgroundRun(who, remember('always'));
    const pending = await waitForPending(who, taskId);
    await answer(who, taskId, {
      request_id: pending.request_id,
      run_id: runId,
      input_type: 'action_approval',
      approved: true,
      approve_always: true,
    });
    await readTaskStream(who, taskId);
    expect(
      await testDb().approvalGrant.count({
        where: { agentId: fresh.agentId, toolName: 'save_memory', revokedAt: null },
      }),
    ).toBe(1);
    const second = await startBackgroundRun(who, remember('again'));
    const frames = await readTaskStream(who, second.taskId);
    expect(types(frames)).not.toContain('CUSTOM:USER_INPUT_REQUIRED');
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    await expectReplays(second.runId, 'grant-reused');
  });
});

describe('sensitive approvals', () => {
  it('only an owner or admin may decide: a member gets 403 on both paths and nothing changes', async () => {
    const tenant = await createTenant({ approval_required_tools: ['save_memory'], sensitive_tools: ['save_memory'] });
    const owner = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
    const member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
    const { taskId, runId } = await startBackgroundRun(member, remember('secret'));
    const pending = await waitForPending(member, taskId);
    expect(pending).toMatchObject({ action: { sensitive: true } });
    const body = { request_id: pending.request_id, run_id: runId, input_type: 'action_approval', approved: true };
    const viaInput = await answer(member, taskId, body);
    expect(viaInput.status).toBe(403);
    const approval = (await listApprovals(member)).find((a) => a.run_id === runId)!;
    expect(approval.sensitive).toBe(true);
    expect((await respond(member, approval.id, { decision: 'approve' })).status).toBe(403);
    expect((await waitForPending(member, taskId)).request_id).toBe(pending.request_id);
    expect((await answer(owner, taskId, body)).status).toBe(200);
    expect(expectOneTerminal(await readTaskStream(owner, taskId)).type).toBe('RUN_FINISHED');
  });

  it('members see only approvals of agents they were granted; other orgs see none', async () => {
    const tenant = await createTenant({ approval_required_tools: ['save_memory'] });
    const owner = { token: await exchange(tenant.keys.owner), agentId: tenant.privateAgentId };
    await testDb().agent.update({
      where: { id: tenant.privateAgentId },
      data: { modelSettings: { approval_required_tools: ['save_memory'] } },
    });
    const { taskId, runId } = await startBackgroundRun(owner, remember('private'));
    await waitForPending(owner, taskId);
    const member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
    expect((await listApprovals(owner)).some((a) => a.run_id === runId)).toBe(true);
    expect((await listApprovals(member)).some((a) => a.run_id === runId)).toBe(false);
    const stranger = await createTenant();
    const strangerToken = { token: await exchange(stranger.keys.owner), agentId: stranger.agentId };
    expect(await listApprovals(strangerToken)).toEqual([]);
    const approval = (await listApprovals(owner)).find((a) => a.run_id === runId)!;
    expect((await respond(strangerToken, approval.id, { decision: 'approve' })).status).toBe(404);
    expect((await respond(member, approval.id, { decision: 'approve' })).status).toBe(403);
    expect((await call('GET', '/api/approvals?status=bogus', { token: owner.token })).status).toBe(422);
    await call('POST', `/api/tasks/${taskId}/cancel`, { token: owner.token, agentId: owner.agentId });
  });
});

describe('plan approval in deep mode', () => {
  it('approves with modified steps: the snapshot shows them and each step runs', async () => {
    const tenant = await createTenant({ require_plan_approval: true });
    const who = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
    const { taskId, runId } = await startBackgroundRun(who, {
      messages: [{ role: 'user', content: 'Write a report' }],
      mode: 'deep',
    });
    const pending = await waitForPending(who, taskId);
    expect(pending).toMatchObject({ input_type: 'plan_approval', plan: { steps: expect.any(Array) } });
    expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('awaiting_approval');
    const ok = await answer(who, taskId, {
      request_id: pending.request_id,
      run_id: runId,
      input_type: 'plan_approval',
      approved: true,
      modified_steps: ['Draft', 'Polish'],
      feedback: 'keep it short',
    });
    expect(ok.status).toBe(200);
    const frames = await readTaskStream(who, taskId);
    expect(types(frames)).toContain('CUSTOM:PLAN_CREATED');
    const snapshots = frames.filter((f) => f.data.type === 'STATE_SNAPSHOT' && 'plan' in (f.data.state as object));
    expect(
      (snapshots.at(-1)!.data.state as { plan: { steps: { title: string }[] } }).plan.steps.map((s) => s.title),
    ).toEqual(['Draft', 'Polish']);
    const progress = frames.filter(
      (f) => f.data.type === 'STATE_DELTA' && JSON.stringify(f.data.delta).includes('/plan/steps'),
    );
    expect(progress).toHaveLength(4);
    expect(expectOneTerminal(frames)).toMatchObject({
      type: 'RUN_FINISHED',
      result: { outcome: 'completed', plan: ['Draft', 'Polish'] },
    });
    const messages = await testDb().message.findMany({ where: { taskId }, orderBy: { position: 'asc' } });
    expect(messages.some((m) => m.content.includes('keep it short'))).toBe(true);
    await expectReplays(runId, 'plan-approved-modified');
  });

  it('a rejected plan ends the run gracefully', async () => {
    const tenant = await createTenant({ require_plan_approval: true });
    const who = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
    const { taskId, runId } = await startBackgroundRun(who, {
      messages: [{ role: 'user', content: 'Research the market' }],
    });
    const pending = await waitForPending(who, taskId);
    await answer(who, taskId, {
      request_id: pending.request_id,
      run_id: runId,
      input_type: 'plan_approval',
      approved: false,
      feedback: 'too broad',
    });
    const frames = await readTaskStream(who, taskId);
    expect(frames[0]!.data).toMatchObject({ mode: 'deep' });
    expect(expectOneTerminal(frames)).toMatchObject({
      type: 'RUN_FINISHED',
      result: { outcome: 'plan_rejected', feedback: 'too broad' },
    });
    await expectReplays(runId, 'plan-rejected');
  });
});
