import { runRequestSchema } from '../../shared/run-request.ts';
import { defineRoute } from '../route.ts';
import { agUiEventSchema, runAgentInputSchema, type RunAgentInput } from '../schemas/ag-ui.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { startThreadRun, threadTask } from '../services/ag-ui-threads.ts';
import { runIdHeaders, RUN_ID_HEADER_DOCS } from '../services/start-run.ts';
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
      '`snapshot`, `value` …). `threadId` names a thread of your organization: the first run of a threadId starts a task ' +
      "(its id is in the `X-Task-Id` header and RUN_STARTED's `metadata.task_id`), the next ones continue it (409 while its " +
      "run is busy; 403 for another member's or another agent's thread). Threads are per organization: the same threadId " +
      'in another organization is another thread, and nothing tells whether it exists there. A threadId that is the id of ' +
      'one of your tasks continues that task. Human input arrives as a CUSTOM `USER_INPUT_REQUIRED` event whose ' +
      '`value` carries the request (request_id, run_id, input_type, prompt, choices…) and `answer_url`; POST the answer ' +
      'there (as for POST /api/tasks/{task_id}/input) and the same stream continues. Frontend tools (`tools`) are offered ' +
      'to the model; a call of one ends the run after TOOL_CALL_END (RUN_FINISHED, `result.outcome` ' +
      '`client_tool_calls`), and the next run of the thread carries its result as a `tool` message. No HEARTBEAT events: silences are ' +
      'kept open with SSE comments. The snake_case endpoints are unchanged.',
    tags: ['ag-ui'],
    auth: 'agent',
    rateLimit: 'runs',
    bodyDoc: runAgentInputSchema,
    responses: {
      200: {
        description: 'AG-UI events as SSE',
        contentType: 'text/event-stream',
        schema: agUiEventSchema,
        headers: RUN_ID_HEADER_DOCS,
      },
      400: {
        description:
          'Neither a user message nor a pending tool call’s result last, nothing to run, or frontend tools the run ' +
          'cannot offer (two of one name, a built-in’s name)',
        schema: errorSchema,
      },
      402: { description: 'The organization is out of credits', schema: errorSchema },
      ...errorResponses,
      409: { description: 'The thread’s run is still busy', schema: errorSchema },
    },
    async handler({ req, res, caller, agent }, deps) {
      const input = parse(runAgentInputSchema, req.body ?? {}, 'body');
      const thread = await threadTask(deps.db, caller.orgId, input.threadId);
      if (thread.exists) await loadAccessibleTask(deps.db, thread.taskId, caller, agent); // 403: another member's or agent's thread
      // Tool results only continue a thread: they answer the frontend tool calls its last run ended with.
      const messages = input.messages
        .filter((m) => READ_ROLES.has(m.role) || (thread.exists && m.role === 'tool'))
        .map((m) =>
          m.role === 'tool'
            ? { role: m.role, content: textOf(m.content), tool_call_id: m.toolCallId }
            : { role: m.role, content: textOf(m.content) },
        );
      const body = parse(
        runRequestSchema,
        {
          messages,
          mode: input.forwardedProps?.mode,
          timezone: input.forwardedProps?.timezone,
          client_tools: input.tools,
          stream: true,
          ...(thread.exists ? { task_id: thread.taskId } : {}),
        },
        'body',
      );
      deps.streams.hold(res, caller);
      const run = await startThreadRun(deps, caller, agent, body, thread);
      openSse(res, runIdHeaders(run));
      startRelay({
        db: deps.db,
        hub: deps.hub,
        res,
        runId: run.runId,
        afterSeq: 0,
        heartbeatMs: deps.config.heartbeatIntervalMs,
        stop: deps.drain.stopSignal,
        format: agUiFormat({ threadId: input.threadId, runId: input.runId, taskId: run.taskId }),
      });
      return undefined;
    },
  }),
];
