import { defineRoute } from '../route.ts';
import { commentRequestSchema, commentResponseSchema, taskRunParamsSchema } from '../schemas/comments.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { commentOnRun } from '../services/comments.ts';

export const commentRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/tasks/{task_id}/runs/{run_id}/comment',
    operationId: 'commentOnRun',
    summary: 'Steer a running agent with a comment',
    description:
      'Adds a mid-execution comment (1–2000 characters after trimming). The comment is stored, delivered to the run ' +
      "(a Temporal Signal) and joins the conversation as a user message right before the agent's next model step; a " +
      '`CUSTOM` `SYSTEM_STATUS` event with `status: "comment_applied"` marks that moment in the stream. A comment that ' +
      'arrives while the final model step is streaming makes the agent take one more step to respond to it (at most 5 ' +
      "such steps per run): the comment is stored under the run's lock before the Signal, and the step that would have ended " +
      'the run leaves the end for after it. Answers 202. A run that is not active (completed, failed, cancelled, or whose end ' +
      'was stored before the comment) answers 409.',
    tags: ['runs'],
    auth: 'agent',
    cookie: true,
    params: taskRunParamsSchema,
    body: commentRequestSchema,
    status: 202,
    responses: {
      202: { description: 'The comment was delivered to the run', schema: commentResponseSchema },
      ...errorResponses,
      409: { description: 'The run is not active', schema: errorSchema },
    },
    async handler({ params, body, caller, agent }, deps) {
      const { comment, taskId, runId } = await commentOnRun(
        deps,
        caller,
        agent,
        { taskId: params.task_id, runId: params.run_id },
        body.content,
      );
      return {
        comment_id: comment.id,
        task_id: taskId,
        run_id: runId,
        status: 'queued',
        created_at: comment.createdAt.toISOString(),
      };
    },
  }),
];
