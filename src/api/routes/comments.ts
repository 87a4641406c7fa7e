import { WorkflowNotFoundError } from '@temporalio/client';
import { deleteComment, findRunState, recordComment } from '../../db/runs.ts';
import { newId } from '../../shared/ids.ts';
import { isActiveStatus } from '../../shared/run-status.ts';
import { commentSignal } from '../../workflows/run-messages.ts';
import { conflict, notFound } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { commentRequestSchema, commentResponseSchema, taskRunParamsSchema } from '../schemas/comments.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { loadAccessibleTask } from '../services/task-access.ts';

export const commentRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/tasks/{task_id}/runs/{run_id}/comment',
    operationId: 'commentOnRun',
    summary: 'Steer a running agent with a comment',
    description:
      'Adds a mid-execution comment (1–2000 characters after trimming). The comment is stored, delivered to the run ' +
      '(a Temporal Signal) and joins the conversation as a user message right before the agent\'s next model step; a ' +
      '`CUSTOM` `SYSTEM_STATUS` event with `status: "comment_applied"` marks that moment in the stream. A comment that ' +
      'arrives while the final model step is streaming makes the agent take one more step to respond to it (at most 5 ' +
      'such steps per run): the comment is stored under the run\'s lock before the Signal, and the step that would have ended ' +
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
    async handler({ params, body, caller, agent }, { db, temporal }) {
      const task = await loadAccessibleTask(db, params.task_id, caller, agent);
      const run = await findRunState(db, params.run_id);
      if (!run || run.taskId !== task.id) throw notFound(`Run ${params.run_id} not found in task ${task.id}`);
      const notActive = () => conflict(`Run ${run.id} is not active (status ${run.status}); comments steer running agents only`);
      if (!isActiveStatus(run.status)) throw notActive();
      const comment = await recordComment(db, { id: newId('cmt'), runId: run.id, userId: caller.userId, content: body.content });
      if (!comment) throw notActive(); // it ended after the check above
      try {
        await temporal.workflow.getHandle(run.id).signal(commentSignal, { commentId: comment.id, content: comment.content });
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        await deleteComment(db, comment.id);
        throw notActive(); // the run ended between our check and the signal
      }
      return { comment_id: comment.id, task_id: task.id, run_id: run.id, status: 'queued', created_at: comment.createdAt.toISOString() };
    },
  }),
];
