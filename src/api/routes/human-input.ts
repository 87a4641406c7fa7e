import { z } from 'zod';
import { APPROVAL_ROLES_DOC } from '../services/approval-rules.ts';
import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { pendingInputLinks } from '../schemas/links.ts';
import { inputAnswerSchema, inputResultSchema, pendingInputSchema } from '../schemas/human.ts';
import { parseAnswerBody } from '../answer-body.ts';
import { answerTaskInput, pendingInputOf } from '../services/task-input.ts';

const taskParams = z.object({ task_id: z.string().min(1) });

export const humanInputRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/tasks/{task_id}/input',
    operationId: 'answerInput',
    summary: 'Answer the request a run is waiting on',
    description:
      'Body: `request_id`, `run_id`, `input_type` copied from USER_INPUT_REQUIRED, plus the answer fields of that type: ' +
      'confirmation `{confirmed, response_text?}`; text, number, choice, multiline `{value}` (number: a numeric string; ' +
      'choice: one of the offered choices); plan_approval `{approved, modified_steps?, feedback?}`; action_approval ' +
      '`{approved, approve_always?, approve_run_scope?, feedback?}`; structured_questions `{answers}` keyed by every question ' +
      'text; or `cancelled: true` with any type to dismiss the request (the agent is told). The run validates the answer ' +
      'before anything changes: a wrong input_type or malformed answer is 422, a stale, foreign or already answered ' +
      'request_id is 409, and a member answering a sensitive-class action approval is 403 (owners and admins only). ' +
      'On success the agent resumes and the stream continues; the response is `{success: true, message}`. ' +
      '`approve_always` records a standing grant for this agent and tool in the org (see the admin console to list or ' +
      'revoke grants); `approve_run_scope` approves the tool for the rest of this run. A question a tool server asks ' +
      'during a call (MCP elicitation: the event carries `elicitation`) is answered the same way; its answer is also ' +
      'checked against the requested schema (422), and `cancelled: true` declines it (docs/tools.md). ' +
      APPROVAL_ROLES_DOC,
    tags: ['human-in-the-loop'],
    auth: 'agent',
    cookie: true,
    params: taskParams,
    bodyDoc: inputAnswerSchema,
    responses: {
      200: { description: 'The answer was accepted and the agent continues', schema: inputResultSchema },
      ...errorResponses,
      409: { description: 'The request is not pending (answered, stale, or the run ended)', schema: errorSchema },
    },
    async handler({ req, params, caller, agent }, deps) {
      return answerTaskInput(deps, caller, agent, params.task_id, parseAnswerBody(req.body ?? {}));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/tasks/{task_id}/pending-input',
    operationId: 'getPendingInput',
    summary: 'Whether the task’s run is waiting for input',
    description:
      'Read from the database (not from the running workflow), so it is right at any time, also while the worker or ' +
      'api restarts. `{pending: false}` when nothing awaits input; otherwise the oldest open request of the task’s ' +
      'active run, with the fields of its USER_INPUT_REQUIRED event.',
    tags: ['human-in-the-loop'],
    auth: 'agent',
    cookie: true,
    params: taskParams,
    responses: {
      200: {
        description: 'The pending request, if any',
        schema: pendingInputSchema,
        links: pendingInputLinks('answerInput'),
      },
      ...errorResponses,
    },
    async handler({ params, caller, agent }, { db }) {
      return pendingInputOf(db, caller, agent, params.task_id);
    },
  }),
];
