import { runEventSchema } from '../../shared/events.ts';
import { defineRoute } from '../route.ts';
import { errorResponses } from '../schemas/common.ts';
import { taskIdParams } from '../schemas/tasks.ts';
import { isRunOfTheTask, latestRunToStream } from '../services/run-streams.ts';
import { loadAccessibleTask } from '../services/task-access.ts';
import { requestedResumePoint, resumeProblem, resumeQuerySchema, streamRunAfter } from '../streaming/resume.ts';

export const streamRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/tasks/{task_id}/stream',
    operationId: 'streamTask',
    summary: "Follow a task's latest run as an SSE stream",
    description:
      "Streams the task's latest run: every stored event from its start (or after the resume point), then live events, " +
      'ending after RUN_FINISHED or RUN_ERROR; a finished run is replayed and the stream ends. Frames are ' +
      '`id: <run_id>:<seq>` + `data: <event>`, the same as POST /api/run, with HEARTBEAT frames (no id, not stored) during ' +
      'silences. The `X-Run-Id` response header names the run being followed. ' +
      'Resume: send `Last-Event-ID` (or the `last_event_id` query parameter, for clients that cannot set headers; the header ' +
      'wins) with the last id received, and the stream continues right after it, so a client that reconnects any number of ' +
      'times receives every event exactly once, in order. An id of an earlier run of the same task means that run is over: ' +
      "the stream starts the latest run from its beginning. An id at the run's terminal event gives an empty stream that ends " +
      'at once. A value that is not an event id, names no run of this task, or names an event the run does not have is 422 ' +
      '(`loc` says header or query), since it cannot have come from this stream. A task that has no run yet is 404.',
    tags: ['tasks'],
    auth: 'agent',
    cookie: true,
    params: taskIdParams,
    query: resumeQuerySchema,
    responses: {
      200: { description: 'The latest run as an SSE stream', contentType: 'text/event-stream', schema: runEventSchema },
      ...errorResponses,
      404: { description: 'Unknown task, or a task with no runs yet', schema: errorResponses[404].schema },
      422: {
        description: 'Malformed `Last-Event-ID` / `last_event_id`, or one that names no event of this task',
        schema: errorResponses[422].schema,
      },
    },
    async handler({ req, res, params, query, caller, agent }, deps) {
      const task = await loadAccessibleTask(deps.db, params.task_id, caller, agent);
      const resume = requestedResumePoint(req, query.last_event_id);
      const latest = await latestRunToStream(deps.db, task.id);
      if (resume && resume.runId !== latest.id) {
        if (!(await isRunOfTheTask(deps.db, resume.runId, task.id)))
          throw resumeProblem(resume.source, `Event ${resume.runId}:${resume.seq} is not an event of this task`);
        await streamRunAfter(deps, res, latest, 0);
        return undefined;
      }
      await streamRunAfter(deps, res, latest, resume?.seq ?? 0, resume?.source);
      return undefined;
    },
  }),
];
