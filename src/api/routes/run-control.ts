import { z } from 'zod';
import { cancelQueuedRun, currentRunOf } from '../../db/run-queue.ts';
import { cancelUpdate, pauseUpdate, resumeUpdate } from '../../workflows/run-messages.ts';
import { conflict } from '../errors.ts';
import { defineRoute, type RouteSpec } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { runControlBodySchema, runControlResultSchema } from '../schemas/human.ts';
import { sendRunUpdate } from '../services/run-updates.ts';
import { loadAccessibleTask } from '../services/task-access.ts';

const updates = { cancel: cancelUpdate, pause: pauseUpdate, resume: resumeUpdate } as const;

const descriptions = {
  cancel:
    'Cancels the task’s active run, also while it waits for input or an approval. STOPPING is in the event log before ' +
    'this answers; the model stream and any sandbox process are stopped, the open request is closed, and the run ends ' +
    '`cancelled` with exactly one terminal event (RUN_ERROR, code CANCELLED). 409 when there is no active run or the ' +
    'run is already finishing (its last model step may store its end before the cancel gets in). With runs waiting in the task’s queue (`multitask_strategy: enqueue`), this acts on the ' +
    'oldest unfinished run; a queued run that is the oldest is ended here without starting.',
  pause:
    'Asks the active run to pause at its next safe point (before a model step or a tool call); it then moves to ' +
    '`paused` (a STATE_DELTA of /run_status) and waits, durably, for resume. It may finish before reaching a safe point. ' +
    '409 when there is no active run, it is already paused or pausing, or it waits for input (answer or cancel instead).',
  resume:
    'Continues a paused run from where it stopped, or withdraws a pause not yet taken. 409 when the run is not paused.',
};

function controlRoute(action: keyof typeof updates): RouteSpec {
  return defineRoute({
    method: 'post',
    path: `/api/tasks/{task_id}/${action}`,
    operationId: `${action}Run`,
    summary: `${action[0]!.toUpperCase()}${action.slice(1)} the task’s active run`,
    description: `${descriptions[action]} Body (optional): \`{reason?}\`.`,
    tags: ['run control'],
    auth: 'agent',
    cookie: true,
    params: z.object({ task_id: z.string().min(1) }),
    body: runControlBodySchema,
    responses: {
      200: { description: 'Accepted by the run', schema: runControlResultSchema },
      ...errorResponses,
      409: { description: 'Nothing to act on', schema: errorSchema },
    },
    async handler({ params, caller, agent }, { db, temporal }) {
      const task = await loadAccessibleTask(db, params.task_id, caller, agent);
      const run = await currentRunOf(db, task.id);
      if (!run) throw conflict(`Task ${task.id} has no active run`);
      if (run.queuedAt !== null) {
        // A run waiting in the task's queue has no workflow yet: cancelling it ends it here; it cannot pause.
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
    },
  });
}

export const runControlRoutes = [controlRoute('cancel'), controlRoute('pause'), controlRoute('resume')];
