import { runRequestSchema } from '../../shared/run-request.ts';
import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { runLinks } from '../schemas/links.ts';
import { asyncRunSchema, runStatusResponseSchema, taskIdParams } from '../schemas/tasks.ts';
import { idempotencyClaim } from '../idempotency-header.ts';
import { runClientOf, runStartHeadersSchema } from '../run-start-headers.ts';
import { backgroundRunMetadata, runIdHeaders, RUN_ID_HEADER_DOCS, startRun } from '../services/start-run.ts';
import { loadAccessibleTask } from '../services/task-access.ts';
import { taskRunProgress } from '../services/tasks.ts';

const TASK_VISIBILITY =
  'Owners and admins see every task of the `X-Agent-Id` agent; members and guests only the tasks they started. ' +
  'A task of another organization, another agent or (for members and guests) another user is 403; an unknown task is 404.';

export const runStatusRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/run/async',
    operationId: 'startRunAsync',
    summary: 'Queue a run in the background',
    description:
      'Takes the same body as POST /api/run and runs the same checks (400, 402 out of credits, 404, 409 for a task ' +
      'with an active run), but always dispatches to the background: `stream` is ignored. Answers 202 with the background run metadata ' +
      '(`id`, `task_id`, `type` and `status` `pending`, `routing_reason`, `stream_endpoint` null, `created_at`) plus ' +
      '`run_id` (same as `id`) and where to follow the run: `status_url` (poll GET /api/run/{task_id}/status), ' +
      '`stream_url` (SSE, GET /api/tasks/{task_id}/stream) and `events_url` (history, GET /api/runs/{run_id}/events).',
    tags: ['runs'],
    auth: 'agent',
    cookie: true,
    rateLimit: 'runs',
    body: runRequestSchema,
    headers: runStartHeadersSchema,
    status: 202,
    responses: {
      202: {
        description: 'Dispatched to the background',
        schema: asyncRunSchema,
        headers: RUN_ID_HEADER_DOCS,
        links: runLinks(),
      },
      400: { description: 'Empty messages, last message not from the user, or no user query', schema: errorSchema },
      402: {
        description: 'The organization is out of credits (checked before anything is stored or started)',
        schema: errorSchema,
      },
      ...errorResponses,
      409: { description: 'The task already has an active run', schema: errorSchema },
    },
    async handler({ req, res, body, caller, agent }, deps) {
      const run = await startRun(
        deps,
        caller,
        agent,
        { ...body, stream: false },
        idempotencyClaim(req, 'startRunAsync', body),
        { client: runClientOf(req) },
      );
      res.set(runIdHeaders(run));
      return {
        ...backgroundRunMetadata(run),
        run_id: run.runId,
        status_url: `/api/run/${run.taskId}/status`,
        stream_url: `/api/tasks/${run.taskId}/stream`,
        events_url: `/api/runs/${run.runId}/events`,
      };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/run/{task_id}/status',
    operationId: 'getRunStatus',
    summary: 'Whether a run of the task is active, and its progress',
    description:
      'Reports the task-level `run_status` (idle, pending, running, completed, failed), `active` (true while the ' +
      'latest run is pending, planning, awaiting_approval, executing or paused) and the latest run: its own `status`, ' +
      '`mode`, `routing_reason`, timestamps, `event_count` (events stored so far, i.e. the seq of its last event), ' +
      'token usage, `credits_used` (set when the run ends) and `error` ({code, message} when it failed). ' +
      '`run` is null for a task without runs. ' +
      TASK_VISIBILITY,
    tags: ['runs'],
    auth: 'agent',
    cookie: true,
    params: taskIdParams,
    responses: {
      200: { description: 'The task-level status and the latest run', schema: runStatusResponseSchema },
      ...errorResponses,
    },
    async handler({ params, caller, agent }, { db }) {
      const task = await loadAccessibleTask(db, params.task_id, caller, agent);
      return taskRunProgress(db, task);
    },
  }),
];
