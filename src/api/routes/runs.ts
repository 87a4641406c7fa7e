import { runEventSchema } from '../../shared/events.ts';
import { runRequestProblem, runRequestSchema } from '../../shared/run-request.ts';
import { badRequest } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { backgroundRunSchema } from '../schemas/runs.ts';
import { loadVisibleRun } from '../services/run-access.ts';
import { startedRunToStream } from '../services/run-streams.ts';
import { requireWidgetRunAllowance } from '../services/widget-run-allowance.ts';
import { idempotencyClaim } from '../idempotency-header.ts';
import { runClientOf, runStartHeadersSchema } from '../run-start-headers.ts';
import { backgroundRunMetadata, runIdHeaders, RUN_ID_HEADER_DOCS, startRun } from '../services/start-run.ts';
import { startRelay } from '../streaming/relay.ts';
import { requestedResumePoint, resumeQuerySchema, streamRunAfter } from '../streaming/resume.ts';
import { openSse } from '../streaming/sse.ts';

export const runRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/run',
    operationId: 'startRun',
    summary: 'Start a run (streamed, or in the background)',
    description:
      'Starts a run on a new task, or continues `task_id` (alias `threadId`). With `stream` true (default) the answer is ' +
      'an SSE stream of AG-UI events, each frame `id: <run_id>:<seq>` + `data: <event>`, ending after RUN_FINISHED or ' +
      'RUN_ERROR; HEARTBEAT frames (no id, not stored) come at least every 15 s of silence. With `stream` false the ' +
      'answer is 202 with the background run metadata. A new task stores every message of the request; a continued ' +
      'task stores only the new turn (the last user message, and `tool` results of the client tool calls its last run ' +
      'ended with), since the stored conversation is the record. `client_tools` are offered to the model; when it ' +
      'calls one, the run ends `completed` with `result.outcome` `client_tool_calls` for the caller to run them. ' +
      '`mode: auto` routes to deep for requests of 600+ characters or that ask for planning, research, analysis, ' +
      'comparison, refactoring or migration; to fast otherwise. ' +
      'Reconnecting to a stream: a request carrying `Last-Event-ID` (or the `last_event_id` query parameter; the header ' +
      'wins) starts nothing; it resumes the stream of the run that id names, right after that event, so fetch-based ' +
      'clients can resend their original request to reconnect. The body must still be a valid run request but is ignored. ' +
      'A run the caller may not see is 404; a value that is not an event id of that run is 422; an id at the terminal ' +
      'event gives an empty stream that ends at once.',
    tags: ['runs'],
    auth: 'agent',
    // Cookie auth on a POST is safe from cross-site forgery only because the body must be
    // application/json, which a cross-site form cannot send without a CORS preflight.
    cookie: true,
    rateLimit: 'runs',
    body: runRequestSchema,
    query: resumeQuerySchema,
    headers: runStartHeadersSchema,
    responses: {
      200: {
        description: 'The run as an SSE stream',
        contentType: 'text/event-stream',
        schema: runEventSchema,
        headers: RUN_ID_HEADER_DOCS,
      },
      202: {
        description: 'Dispatched to the background (`stream: false`)',
        schema: backgroundRunSchema,
        headers: RUN_ID_HEADER_DOCS,
      },
      400: {
        description:
          'Empty messages, last message neither from the user nor a pending client tool call’s result, no user query, ' +
          'or client tools the run cannot offer (two of one name, a built-in’s name, with `mode: deep` or a queued strategy)',
        schema: errorSchema,
      },
      402: {
        description: 'The organization is out of credits (checked before anything is stored or started)',
        schema: errorSchema,
      },
      ...errorResponses,
      409: { description: 'The task already has an active run', schema: errorSchema },
    },
    async handler({ req, body, query, res, caller, agent }, deps) {
      const resume = requestedResumePoint(req, query.last_event_id);
      if (resume) {
        const problem = runRequestProblem(body); // "must still be a valid run request"
        if (problem) throw badRequest(problem);
        const resumed = await loadVisibleRun(deps.db, resume.runId, caller, agent);
        await streamRunAfter(deps, res, resumed, resume.seq, resume.source);
        return undefined;
      }
      await requireWidgetRunAllowance(deps, caller);
      if (body.stream) deps.streams.hold(res, caller); // refused before a run is started
      const run = await startRun(deps, caller, agent, body, idempotencyClaim(req, 'startRun', body), {
        client: runClientOf(req),
      });
      res.set(runIdHeaders(run));
      if (!body.stream) {
        res.status(202);
        return backgroundRunMetadata(run);
      }
      if (run.replayed) {
        // The same request again: the run's stream from its first event, stored ones first.
        await streamRunAfter(deps, res, await startedRunToStream(deps.db, run.runId), 0);
        return undefined;
      }
      openSse(res, runIdHeaders(run));
      startRelay({
        db: deps.db,
        hub: deps.hub,
        res,
        runId: run.runId,
        afterSeq: 0,
        heartbeatMs: deps.config.heartbeatIntervalMs,
        stop: deps.drain.stopSignal,
      });
      return undefined;
    },
  }),
];
