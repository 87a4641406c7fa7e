import type { Client } from '@temporalio/client';
import type { AgentContext, Caller } from '../../auth/caller.ts';
import type { Db } from '../../db/client.ts';
import { cancelQueuedRun, currentRunOf } from '../../db/run-queue.ts';
import { conflict } from '../../shared/domain-error.ts';
import { cancelUpdate, pauseUpdate, resumeUpdate } from '../../workflows/run-messages.ts';
import { sendRunUpdate } from './run-updates.ts';
import { loadAccessibleTask } from './task-access.ts';

const updates = { cancel: cancelUpdate, pause: pauseUpdate, resume: resumeUpdate } as const;

export type RunControlAction = keyof typeof updates;

/**
 * Cancels, pauses or resumes the task's oldest unfinished run. A run waiting in the task's queue
 * has no workflow yet: cancelling ends it here, and it cannot pause or resume.
 */
export async function controlTaskRun(
  deps: { db: Db; temporal: Client },
  caller: Caller,
  agent: AgentContext,
  taskId: string,
  action: RunControlAction,
) {
  const { db, temporal } = deps;
  const task = await loadAccessibleTask(db, taskId, caller, agent);
  const run = await currentRunOf(db, task.id);
  if (!run) throw conflict(`Task ${task.id} has no active run`);
  if (run.queuedAt !== null) {
    if (
      action !== 'cancel' ||
      !(await cancelQueuedRun(db, run.id, `Cancelled by ${caller.userId} before it started`))
    ) {
      throw conflict(`Run ${run.id} of task ${task.id} is waiting in the task's queue; only cancel applies to it`);
    }
    return { task_id: task.id, run_id: run.id, action, message: 'Cancelled before it started' };
  }
  const result = await sendRunUpdate(temporal, run.id, updates[action], { requestedBy: caller.userId });
  return { task_id: task.id, run_id: run.id, action, message: result.message };
}
