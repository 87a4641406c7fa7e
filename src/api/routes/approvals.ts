import { z } from 'zod';
import { APPROVAL_ROLES_DOC, refuseSensitiveUnlessAdmin } from '../services/approval-rules.ts';
import { agentsGrantedTo } from '../../db/agents.ts';
import { findApprovalWithRunStatus, listApprovals, type ListedApproval } from '../../db/approvals.ts';
import { isActiveStatus } from '../../shared/run-status.ts';
import { conflict, forbidden, notFound } from '../errors.ts';
import { isOrgAdmin } from '../../shared/roles.ts';
import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import {
  approvalDecisionResultSchema,
  approvalDecisionSchema,
  approvalListQuerySchema,
  approvalListSchema,
} from '../schemas/human.ts';
import { mayUseAgentOf } from '../services/agent-access.ts';
import { answerRequest, type ParsedAnswer } from '../services/input-answers.ts';

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
    task_id: a.taskId,
    run_id: a.runId,
    request_id: a.requestId,
    created_at: a.createdAt.toISOString(),
    decided_at: a.decidedAt?.toISOString() ?? null,
    decided_by: a.decidedBy,
    feedback: a.feedback,
  };
}

const guestsRefused = () => forbidden('Guests may not use the approvals endpoints');

export const approvalRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/approvals',
    operationId: 'listApprovals',
    summary: 'Approvals of the organization',
    description:
      'Organization-scoped, across agents; no X-Agent-Id needed. `status` is pending (default), approved, rejected, ' +
      'cancelled or all; newest first; `limit` 1–200, default 50. Owners and admins see every approval of the org; members ' +
      'see only approvals of agents they were granted; guests get 403.',
    tags: ['approvals'],
    auth: 'user',
    rateLimit: 'approvals',
    query: approvalListQuerySchema,
    responses: { 200: { description: 'Approvals', schema: approvalListSchema }, ...errorResponses },
    async handler({ query, caller }, { db }) {
      if (caller.role === 'guest') throw guestsRefused();
      const rows = await listApprovals(db, {
        orgId: caller.orgId,
        status: query.status === 'all' ? undefined : query.status,
        agentIds: isOrgAdmin(caller.role) ? undefined : await agentsGrantedTo(db, caller.userId),
        limit: query.limit,
      });
      return { approvals: rows.map(toApproval), count: rows.length };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/approvals/{approval_id}/respond',
    operationId: 'respondToApproval',
    summary: 'Approve or reject an approval gate',
    description:
      'The path for machine or external approvers. `{decision: "approve"|"reject", feedback?}`, plus for action ' +
      'approvals `approve_always?` and `approve_run_scope?`, and for plan approvals `modified_steps?`. It resolves the gate ' +
      'exactly as answering through POST /api/tasks/{task_id}/input does. An approval of another org is 404; a member ' +
      'without access to its agent is 403; a member deciding a sensitive approval is 403; an approval that is no longer ' +
      'pending is 409. ' +
      APPROVAL_ROLES_DOC,
    tags: ['approvals'],
    auth: 'user',
    rateLimit: 'approvals',
    params: z.object({ approval_id: z.string().min(1) }),
    body: approvalDecisionSchema,
    responses: {
      200: { description: 'Decided', schema: approvalDecisionResultSchema },
      ...errorResponses,
      409: { description: 'The approval is not pending', schema: errorSchema },
    },
    async handler({ params, body, caller }, deps) {
      const { db } = deps;
      if (caller.role === 'guest') throw guestsRefused();
      const approval = await findApprovalWithRunStatus(db, params.approval_id);
      if (!approval || approval.orgId !== caller.orgId) throw notFound(`Approval ${params.approval_id} not found`);
      if (!(await mayUseAgentOf(db, caller, approval.agentId))) {
        throw forbidden('You have not been granted access to this approval’s agent');
      }
      refuseSensitiveUnlessAdmin(caller, approval.sensitive);
      if (approval.status !== 'pending' || !isActiveStatus(approval.run.status))
        throw conflict(`Approval ${approval.id} is not pending (${approval.status})`);
      const approved = body.decision === 'approve';
      const answer =
        approval.kind === 'plan'
          ? { approved, feedback: body.feedback, modified_steps: body.modified_steps }
          : {
              approved,
              feedback: body.feedback,
              approve_always: body.approve_always,
              approve_run_scope: body.approve_run_scope,
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
        status: approved ? 'approved' : 'rejected',
      };
    },
  }),
];
