import { Context } from '@temporalio/activity';
import { appendEvents } from '../db/event-log.ts';
import { findTaskRequester } from '../db/tasks.ts';
import { toolCatalog } from '../shared/tools/index.ts';
import { withAttemptLimit } from '../connections/transient-errors.ts';
import { CALL_ATTEMPTS, failureTypes, type ToolCallInput, type ToolOutcome } from '../shared/run-workflow-types.ts';
import type { ActivityDeps } from './deps.ts';
import { executeOnce } from './tool-executions.ts';
import { toolImplementations } from './tools/index.ts';
import { ToolError } from '../shared/tools/tool-error.ts';
import { formatIssues } from '../shared/zod-issues.ts';
import type { ToolContext } from './tools/types.ts';

export function createRunToolActivities(deps: ActivityDeps) {
  return {
    /**
     * Runs one `activity` tool call. Bad arguments and ToolErrors become an
     * error result the model sees; anything else is retried by the activity's
     * policy and, when retries run out, fails the run with TOOL_ERROR.
     */
    async runTool(call: ToolCallInput): Promise<ToolOutcome> {
      const activity = Context.current();
      const limit = {
        attempt: activity.info.attempt,
        attempts: CALL_ATTEMPTS,
        cancelled: () => activity.cancellationSignal.aborted,
      };
      return withAttemptLimit(`tool ${call.name}`, failureTypes.tool, limit, () => runToolCall(call));
    },
  };

  async function runToolCall(call: ToolCallInput): Promise<ToolOutcome> {
    const definition = toolCatalog.get(call.name);
    const implementation = toolImplementations.get(call.name);
    if (!definition || !implementation)
      return { ok: false, error: { code: 'UNKNOWN_TOOL', message: `no tool named ${call.name}` } };
    const parsed = definition.input.safeParse(call.args);
    if (!parsed.success) {
      const message = formatIssues(parsed.error.issues, { atRoot: 'input' }).join('; ');
      return { ok: false, error: { code: 'INVALID_ARGUMENTS', message } };
    }
    const activity = Context.current();
    const ctx: ToolContext = {
      runId: call.runId,
      taskId: call.taskId,
      orgId: call.orgId,
      agentId: call.agentId,
      toolCallId: call.toolCallId,
      signal: activity.cancellationSignal,
      heartbeat: (details) => activity.heartbeat(details),
      emit: async (events, key) =>
        void (await appendEvents(deps.db, call.runId, events, key && `tool:${call.toolCallId}:${key}`)),
      requester: once(() => findTaskRequester(deps.db, call.taskId)),
      deps,
    };
    if (activity.info.attempt > 1) {
      await ctx.emit(
        [
          {
            type: 'CUSTOM',
            name: 'SYSTEM_STATUS',
            data: {
              status: 'retrying',
              operation: 'tool_call',
              tool_call_id: call.toolCallId,
              tool: call.name,
              attempt: activity.info.attempt,
            },
          },
        ],
        `retry:${activity.info.attempt}`,
      );
    }
    const execute = async (): Promise<ToolOutcome> => {
      // Every tool beats while it runs: the silence of a dead worker is what hands the call on (activity-options.ts).
      const beat = setInterval(() => activity.heartbeat(), 1000);
      try {
        return { ok: true, output: await implementation.run(parsed.data as never, ctx) };
      } catch (err) {
        if (err instanceof ToolError) return { ok: false, error: { code: err.code, message: err.message } };
        if (activity.cancellationSignal.aborted) throw err;
        deps.logger.warn({ runId: call.runId, tool: call.name, err: String(err) }, 'tool call failed');
        throw err; // retried, or failed for good, by runTool's attempt limit
      } finally {
        clearInterval(beat);
      }
    };
    return definition.readOnly ? execute() : executeOnce(deps.db, call, activity.info.attempt, execute);
  }
}

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= load());
}
