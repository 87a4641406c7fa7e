import type { Client } from '@temporalio/client';
import type { Caller } from '../../auth/caller.ts';
import { agentsGrantedTo } from '../../db/agents.ts';
import { findApprovalWithRunStatus, listApprovals, type ListedApproval } from '../../db/approvals.ts';
import type { Db } from '../../db/client.ts';
import { conflict, forbidden, notFound } from '../../shared/domain-error.ts';
import { isOrgAdmin } from '../../shared/roles.ts';
import { isActiveStatus } from '../../shared/run-status.ts';
import { mayUseAgentOf } from './agent-access.ts';
import { refuseSensitiveUnlessAdmin } from './approval-rules.ts';
import { answerRequest, type ParsedAnswer } from './input-answers.ts';

function toApproval(a: ListedApproval) {
  return {
    id: a.id,
    kind: a.kind,
    status: a.status,
    sensitive: a.sensitive,
    tool_name: a.toolName,
    prompt: a.request.prompt,
    details: a.details,
    agent_id: a.agentId,
    agent_name: a.run.task.agent.name,
    task_id: a.taskId,
    task_title: a.run.task.title,
    run_id: a.runId,
    run_status: a.run.status,
    started_by: a.run.task.user,
    request_id: a.requestId,
    created_at: a.createdAt.toISOString(),
    decided_at: a.decidedAt?.toISOString() ?? null,
    decided_by: a.decidedBy,
    feedback: a.feedback,
  };
}

const refuseGuests = (caller: Caller) => {
  if (caller.role === 'guest') throw forbidden('Guests may not use the approvals endpoints');
};

/** The org's approvals the caller may see: owners and admins all, members those of agents they were granted. */
export async function listOrgApprovals(db: Db, caller: Caller, query: { status: string; limit: number }) {
  refuseGuests(caller);
  const rows = await listApprovals(db, {
    orgId: caller.orgId,
    status: query.status === 'all' ? undefined : query.status,
    agentIds: isOrgAdmin(caller.role) ? undefined : await agentsGrantedTo(db, caller.userId),
    limit: query.limit,
  });
  return { approvals: rows.map(toApproval), count: rows.length };
}

export interface ApprovalDecision {
  decision: 'approve' | 'reject';
  feedback?: string;
  modified_steps?: string[];
  approve_always?: boolean;
  approve_run_scope?: boolean;
}

/** Decides an approval of the caller's org as answering its run's request would (see answerRequest). */
export async function respondToApproval(
  deps: { db: Db; temporal: Client },
  caller: Caller,
  approvalId: string,
  decision: ApprovalDecision,
) {
  const { db } = deps;
  refuseGuests(caller);
  const approval = await findApprovalWithRunStatus(db, approvalId);
  if (!approval || approval.orgId !== caller.orgId) throw notFound(`Approval ${approvalId} not found`);
  if (!(await mayUseAgentOf(db, caller, approval.agentId))) {
    throw forbidden('You have not been granted access to this approval’s agent');
  }
  refuseSensitiveUnlessAdmin(caller, approval.sensitive);
  if (approval.status !== 'pending' || !isActiveStatus(approval.run.status))
    throw conflict(`Approval ${approval.id} is not pending (${approval.status})`);
  const approved = decision.decision === 'approve';
  const answer =
    approval.kind === 'plan'
      ? { approved, feedback: decision.feedback, modified_steps: decision.modified_steps }
      : {
          approved,
          feedback: decision.feedback,
          approve_always: decision.approve_always,
          approve_run_scope: decision.approve_run_scope,
        };
  const result = await answerRequest(deps, caller, {
    requestId: approval.requestId,
    runId: approval.runId,
    inputType: approval.kind === 'plan' ? 'plan_approval' : 'action_approval',
    answer: JSON.parse(JSON.stringify(answer)) as ParsedAnswer['answer'],
  });
  return {
    success: true,
    message: result.message,
    approval_id: approval.id,
    status: approved ? ('approved' as const) : ('rejected' as const),
  };
}
