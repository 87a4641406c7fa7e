import { findTask } from '../../db/tasks.ts';
import { runRequestSchema } from '../../shared/run-request.ts';
import { defineRoute } from '../route.ts';
import { agUiEventSchema, runAgentInputSchema, type RunAgentInput } from '../schemas/ag-ui.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { runIdHeaders, RUN_ID_HEADER_DOCS, startRun } from '../services/start-run.ts';
import { loadAccessibleTask } from '../services/task-access.ts';
import { agUiFormat } from '../streaming/ag-ui-format.ts';
import { startRelay } from '../streaming/relay.ts';
import { openSse } from '../streaming/sse.ts';
import { parse } from '../validation.ts';

/** The text of an AG-UI message: its string content, or its text parts joined. */
function textOf(content: RunAgentInput['messages'][number]['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => part.text ?? '').join('');
}

const READ_ROLES = new Set(['user', 'assistant', 'system', 'developer']);

/** AG-UI clients (`@ag-ui/client`, CopilotKit) run agents here, in AG-UI's own camelCase events. */
export const agUiRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/ag-ui/run',
    operationId: 'runAgUiAgent',
    summary: 'Run the agent for an AG-UI client (RunAgentInput in, AG-UI events out)',
    description:
      'The AG-UI protocol’s HTTP endpoint, for `@ag-ui/client`’s HttpAgent and CopilotKit: the same auth (JWT and ' +
      '`X-Agent-Id`), rate limit and workflow as POST /api/run, but the body is AG-UI’s RunAgentInput and the SSE stream ' +
      'carries AG-UI’s standard events in camelCase (`threadId`, `runId`, `messageId`, `toolCallId`, `toolCallName`, ' +
      '`snapshot`, `value` …). `threadId` is the task: an unknown one starts a task with that id, a known one of yours ' +
      'continues it (409 while its run is busy). Human input arrives as a CUSTOM `USER_INPUT_REQUIRED` event whose ' +
      '`value` carries the request (request_id, run_id, input_type, prompt, choices…) and `answer_url`; POST the answer ' +
      'there (as for POST /api/tasks/{task_id}/input) and the same stream continues. No HEARTBEAT events: silences are ' +
      'kept open with SSE comments. The snake_case endpoints are unchanged.',
    tags: ['ag-ui'],
    auth: 'agent',
    rateLimit: 'runs',
    bodyDoc: runAgentInputSchema,
    responses: {
      200: { description: 'AG-UI events as SSE', contentType: 'text/event-stream', schema: agUiEventSchema, headers: RUN_ID_HEADER_DOCS },
      400: { description: 'No user message last, or nothing to run', schema: errorSchema },
      402: { description: 'The organization is out of credits', schema: errorSchema },
      ...errorResponses,
      409: { description: 'The thread’s run is still busy', schema: errorSchema },
    },
    async handler({ req, res, caller, agent }, deps) {
      const input = parse(runAgentInputSchema, req.body ?? {}, 'body');
      const existing = await findTask(deps.db, input.threadId);
      if (existing) await loadAccessibleTask(deps.db, input.threadId, caller, agent); // 403 for another's thread
      const messages = input.messages.filter((m) => READ_ROLES.has(m.role)).map((m) => ({ role: m.role, content: textOf(m.content) }));
      const body = parse(
        runRequestSchema,
        { messages, mode: input.forwardedProps?.mode, timezone: input.forwardedProps?.timezone, stream: true, ...(existing ? { task_id: input.threadId } : {}) },
        'body',
      );
      deps.streams.hold(res, caller);
      const run = await startRun(deps, caller, agent, body, undefined, existing ? {} : { newTaskId: input.threadId });
      openSse(res, runIdHeaders(run));
      startRelay({
        db: deps.db,
        hub: deps.hub,
        res,
        runId: run.runId,
        afterSeq: 0,
        heartbeatMs: deps.config.heartbeatIntervalMs,
        stop: deps.drain.stopSignal,
        format: agUiFormat({ threadId: input.threadId, runId: input.runId }),
      });
      return undefined;
    },
  }),
];
