import { z } from 'zod';
import { APPROVAL_ROLES_DOC } from '../services/approval-rules.ts';
import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import {
  approvalDecisionResultSchema,
  approvalDecisionSchema,
  approvalListQuerySchema,
  approvalListSchema,
} from '../schemas/human.ts';
import { listOrgApprovals, respondToApproval } from '../services/approvals.ts';

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
      return listOrgApprovals(db, caller, query);
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
      return respondToApproval(deps, caller, params.approval_id, body);
    },
  }),
];
