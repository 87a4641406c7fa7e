import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { AgentContext, Caller } from '../../auth/caller.ts';
import type { Db } from '../../db/client.ts';
import { deleteComment, findRunState, recordComment } from '../../db/runs.ts';
import { newId } from '../../shared/ids.ts';
import { isActiveStatus } from '../../shared/run-status.ts';
import { commentSignal } from '../../workflows/run-messages.ts';
import { conflict, notFound } from '../../shared/domain-error.ts';
import { loadAccessibleTask } from './task-access.ts';

/**
 * Steers a running agent: the comment is stored first, then signalled to the run, which adds it to
 * the conversation before its next model step. A run that ended meanwhile keeps no comment (409).
 */
export async function commentOnRun(
  deps: { db: Db; temporal: Client },
  caller: Caller,
  agent: AgentContext,
  target: { taskId: string; runId: string },
  content: string,
) {
  const { db, temporal } = deps;
  const task = await loadAccessibleTask(db, target.taskId, caller, agent);
  const run = await findRunState(db, target.runId);
  if (!run || run.taskId !== task.id) throw notFound(`Run ${target.runId} not found in task ${task.id}`);
  const notActive = () =>
    conflict(`Run ${run.id} is not active (status ${run.status}); comments steer running agents only`);
  if (!isActiveStatus(run.status)) throw notActive();
  const comment = await recordComment(db, { id: newId('cmt'), runId: run.id, userId: caller.userId, content });
  if (!comment) throw notActive(); // it ended after the check above
  try {
    await temporal.workflow
      .getHandle(run.id)
      .signal(commentSignal, { commentId: comment.id, content: comment.content });
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    await deleteComment(db, comment.id);
    throw notActive(); // the run ended between our check and the signal
  }
  return { comment, taskId: task.id, runId: run.id };
}
