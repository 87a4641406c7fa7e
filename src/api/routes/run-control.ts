import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { runControlBodySchema, runControlResultSchema } from '../schemas/human.ts';
import { controlTaskRun, type RunControlAction } from '../services/run-control.ts';

const descriptions: Record<RunControlAction, string> = {
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

function controlRoute(action: RunControlAction): RouteSpec {
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
    async handler({ params, caller, agent }, deps) {
      return controlTaskRun(deps, caller, agent, params.task_id, action);
    },
  });
}

export const runControlRoutes = [controlRoute('cancel'), controlRoute('pause'), controlRoute('resume')];
