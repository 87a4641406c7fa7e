import { z } from 'zod';
import { pageLimit } from './common.ts';
import { answerSchemas } from '../../shared/answer-schemas.ts';
import { inputTypes } from '../../shared/input-requests.ts';
import { runStatuses } from '../../shared/run-status.ts';

const ids = { request_id: z.string().min(1), run_id: z.string().min(1) };

/**
 * Body of POST /api/tasks/{task_id}/input: request_id, run_id and input_type
 * copied from USER_INPUT_REQUIRED, plus the answer fields of that type, or
 * `cancelled: true` to dismiss the request.
 */
export const inputAnswerSchema = z
  .union([
    z.strictObject({ ...ids, input_type: z.enum(inputTypes), cancelled: z.literal(true) }),
    ...inputTypes.map((type) =>
      answerSchemas[type].extend({ ...ids, input_type: z.literal(type), cancelled: z.literal(false).optional() }),
    ),
  ])
  .meta({ id: 'InputAnswer' });

export const inputResultSchema = z.object({ success: z.boolean(), message: z.string() }).meta({ id: 'InputResult' });

export const pendingRequestSchema = z
  .object({
    request_id: z.string(),
    run_id: z.string(),
    input_type: z.enum(inputTypes),
    prompt: z.string(),
    choices: z.array(z.string()).optional(),
    questions: z.array(z.object({ question: z.string(), choices: z.array(z.string()).optional() })).optional(),
    plan: z.object({ steps: z.array(z.string()) }).optional(),
    action: z
      .object({ tool_name: z.string(), tool_call_id: z.string(), arguments: z.unknown(), sensitive: z.boolean() })
      .optional(),
    approval_id: z.string().optional(),
    elicitation: z
      .object({
        server: z.string(),
        tool: z.string(),
        tool_call_id: z.string(),
        requested_schema: z.record(z.string(), z.unknown()),
      })
      .optional()
      .describe('Set when a tool server asked during a tool call (MCP elicitation), with the JSON schema it asked for'),
    tool_call_id: z.string().optional(),
    created_at: z.string(),
  })
  .meta({ id: 'PendingInputRequest' });

export const pendingInputSchema = z
  .object({ pending: z.boolean(), request: pendingRequestSchema.optional() })
  .meta({ id: 'PendingInput' });

export const approvalStatuses = ['pending', 'approved', 'rejected', 'cancelled'] as const;

export const approvalSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['action', 'plan']),
    status: z.enum(approvalStatuses),
    sensitive: z.boolean().describe('Only owners and admins may decide'),
    tool_name: z.string().nullable(),
    prompt: z.string(),
    details: z.record(z.string(), z.unknown()).describe('action: {tool_name, tool_call_id, arguments}; plan: {steps}'),
    agent_id: z.string(),
    agent_name: z.string().describe("The agent's name"),
    task_id: z.string(),
    task_title: z.string().describe("The start of the task's first user message"),
    run_id: z.string(),
    run_status: z.enum(runStatuses).describe("The run's status now"),
    started_by: z
      .object({ id: z.string(), name: z.string(), email: z.string(), visitor: z.boolean() })
      .describe('The user who started the task (a widget visitor: `visitor` true)'),
    request_id: z.string(),
    created_at: z.string(),
    decided_at: z.string().nullable(),
    decided_by: z.string().nullable(),
    feedback: z.string().nullable(),
  })
  .meta({ id: 'Approval' });

export const approvalListQuerySchema = z.object({
  status: z.enum([...approvalStatuses, 'all']).default('pending'),
  limit: pageLimit(200, 50),
});

export const approvalListSchema = z
  .object({ approvals: z.array(approvalSchema), count: z.number().int() })
  .meta({ id: 'ApprovalList' });

export const approvalDecisionSchema = z
  .strictObject({
    decision: z.enum(['approve', 'reject']),
    feedback: z.string().max(4000).optional(),
    approve_always: z
      .boolean()
      .optional()
      .describe('action approvals: a standing grant for this agent and tool in the org'),
    approve_run_scope: z.boolean().optional().describe('action approvals: approve this tool for the rest of the run'),
    modified_steps: z
      .array(z.string().min(1).max(2000))
      .min(1)
      .max(50)
      .optional()
      .describe('plan approvals: the steps to run instead'),
  })
  .meta({ id: 'ApprovalDecision' });

export const approvalDecisionResultSchema = z
  .object({ success: z.boolean(), message: z.string(), approval_id: z.string(), status: z.enum(approvalStatuses) })
  .meta({ id: 'ApprovalDecisionResult' });

export const runControlBodySchema = z.strictObject({ reason: z.string().max(1000).optional() }).optional();

export const runControlResultSchema = z
  .object({
    task_id: z.string(),
    run_id: z.string(),
    action: z.enum(['cancel', 'pause', 'resume']),
    message: z.string(),
  })
  .meta({ id: 'RunControlResult' });
