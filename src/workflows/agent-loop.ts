import { condition } from '@temporalio/workflow';
import { describeAnswer, type PendingRequest } from '../shared/input-requests.ts';
import { commentKey } from '../shared/run-end.ts';
import type { ToolCall, ToolOutcome } from '../shared/run-workflow-types.ts';
import { bookkeeping, modelStep, runTool } from './activities.ts';
import { humanRequestFor } from './human-tools.ts';
import { sandboxTools, tools } from './lazy-modules.ts';
import type { RunState } from './run-state.ts';
import { isCancelling } from './run-lifecycle.ts';
import { runSandboxTool, snapshotOnHost } from './sandbox-routing.ts';
import { policyNames } from '../shared/tool-server-names.ts';
import { callServerTool, findServerTool, serverToolsForModel } from './tool-servers.ts';

/** Extra model steps a run may take to respond to steering comments that arrived mid-step. */
const MAX_COMMENT_STEPS = 5;

export interface LoopResult {
  text: string;
  messageId?: string;
  steps: number;
  /** The last model step stored the run's end (ModelStepInput.finish): the workflow only mirrors it. */
  ended?: boolean;
  /** The model called tools the client runs: the loop stopped there, for the run to end with them. */
  clientToolCalls?: ToolCall[];
}

/** How long a run whose end was held back by a comment waits for that comment's Signal (its api may have died before sending it). */
const COMMENT_SIGNAL_WAIT = '10 seconds';

/**
 * The agent loop: a model step, then each tool call it asked for (approval gate
 * first where policy says so), then the next model step, until the model answers
 * in text. The last allowed step offers no tools, so a run always ends with an answer.
 * With `answerWithEnd` that answer ends the run: the model step stores the run's end itself
 * (ModelStepInput.finish) unless a cancel or a comment got in first; otherwise it is left for the
 * run's terminal write to store.
 */
export async function runAgentLoop(
  state: RunState,
  label: string,
  { answerWithEnd = false, offerClientTools = false } = {},
): Promise<LoopResult> {
  const { input } = state;
  let commentSteps = 0;
  for (let step = 0; ; step++) {
    await state.safePoint();
    await applyComments(state);
    const allowTools = step < state.settings.maxSteps - 1;
    const enter = state.takeDeferredMove();
    const finish =
      answerWithEnd && !isCancelling(state.life)
        ? { usage: state.usage, steps: state.steps, label: `${label}:${step}`, stepCount: step + 1 }
        : undefined;
    const result = await modelStep({
      runId: input.runId,
      taskId: input.taskId,
      agentId: input.agentId,
      orgId: input.orgId,
      step,
      allowTools,
      ...(allowTools ? serverToolsForModel(state) : {}),
      ...(allowTools && offerClientTools && input.clientTools ? { clientTools: input.clientTools } : {}),
      ...(enter ? { enter } : {}),
      ...(finish ? { finish } : {}),
    });
    state.addUsage(result.usage, result.model, `${label}:${step}`);
    if (result.ended) return { text: result.text, messageId: result.messageId, steps: step + 1, ended: true };
    // Not a cancel, so a comment was stored before the step could end the run: wait for its Signal, then answer it.
    if (result.interrupted && !isCancelling(state.life) && state.comments.length === 0)
      await condition(() => state.comments.length > 0, COMMENT_SIGNAL_WAIT);
    const parts = result.toolCalls.length
      ? { tool_calls: result.toolCalls.map((c) => ({ id: c.id, name: c.name, input: c.args })) }
      : undefined;
    const message = { taskId: input.taskId, role: 'assistant' as const, content: result.text, parts };
    if (answerWithEnd && result.toolCalls.length === 0 && state.comments.length === 0) {
      // The run's last step: the answer is stored by the terminal write (RunState.move).
      state.unsavedAnswer = message;
      return { text: result.text, messageId: result.messageId, steps: step + 1 };
    }
    await state.record(`${label}:assistant:${step}`, [], { message });
    if (result.toolCalls.length === 0) {
      if (state.comments.length > 0 && commentSteps++ < MAX_COMMENT_STEPS) continue;
      return { text: result.text, messageId: result.messageId, steps: step + 1 };
    }
    const clientCalls = offerClientTools ? result.toolCalls.filter((c) => isClientTool(state, c.name)) : [];
    for (const call of result.toolCalls) {
      if (clientCalls.includes(call)) continue; // the client runs it after the run ends
      await state.safePoint();
      const outcome = await callTool(state, call);
      const content = JSON.stringify(outcome.ok ? outcome.output : { error: outcome.error });
      await state.record(`tool:${call.id}`, [{ type: 'TOOL_CALL_RESULT', tool_call_id: call.id, content }], {
        message: {
          taskId: input.taskId,
          role: 'tool',
          content,
          parts: { tool_call_id: call.id, tool_name: call.name },
        },
      });
    }
    if (clientCalls.length)
      return { text: result.text, messageId: result.messageId, steps: step + 1, clientToolCalls: clientCalls };
  }
}

function isClientTool(state: RunState, name: string): boolean {
  return state.input.clientTools?.some((t) => t.name === name) ?? false;
}

/** Comments join the conversation as user messages, in arrival order, before the next model step. */
export async function applyComments(state: RunState): Promise<void> {
  for (const comment of state.comments.splice(0)) {
    await state.record(
      commentKey(comment.commentId),
      [
        {
          type: 'CUSTOM',
          name: 'SYSTEM_STATUS',
          data: { status: 'comment_applied', comment_id: comment.commentId, content: comment.content },
        },
      ],
      { message: { taskId: state.input.taskId, role: 'user', content: comment.content } },
    );
  }
}

async function callTool(state: RunState, call: ToolCall): Promise<ToolOutcome> {
  const serverTool = findServerTool(state, call.name);
  if (serverTool) return (await approvalGate(state, call)) ?? callServerTool(state, call, serverTool);
  const definition = tools().toolCatalog.get(call.name);
  if (!definition) return { ok: false, error: { code: 'UNKNOWN_TOOL', message: `no tool named ${call.name}` } };
  if (definition.kind === 'human') {
    const request = humanRequestFor(state, call);
    if ('error' in request) return { ok: false, error: request.error };
    await snapshotBeforeWaiting(state);
    const resolution = await state.ask(request);
    return { ok: true, output: describeAnswer(request, resolution.answer) };
  }
  const gate = await approvalGate(state, call);
  if (gate) return gate;
  const toolCall = state.toolCallInput(call);
  if (!sandboxTools().sandboxTools.some((t) => t.name === call.name)) return runTool(toolCall);
  if (!definition.readOnly) state.sandboxChanged = true;
  return runSandboxTool(state, toolCall);
}

/**
 * A person may answer in hours; the host holding the sandbox may be gone by then. Work
 * the run did in the workspace is saved first, so it survives the host.
 */
async function snapshotBeforeWaiting(state: RunState): Promise<void> {
  if (state.sandboxChanged) await snapshotOnHost(state);
}

/** Waits for an approval when the agent's policy asks for one; returns an outcome only when the call must not run. */
async function approvalGate(state: RunState, call: ToolCall): Promise<ToolOutcome | undefined> {
  const { settings, input } = state;
  if (!policyNames(settings.approvalRequiredTools, call.name) || state.runScopeGrants.has(call.name)) return undefined;
  if (await bookkeeping.hasStandingGrant({ orgId: input.orgId, agentId: input.agentId, toolName: call.name }))
    return undefined;
  await snapshotBeforeWaiting(state);
  const sensitive = policyNames(settings.sensitiveTools, call.name);
  const approvalId = state.newId('apv');
  const request: PendingRequest = {
    requestId: state.newId('req'),
    inputType: 'action_approval',
    prompt: `The agent wants to run ${call.name}. Approve?`,
    details: {
      action: { tool_name: call.name, tool_call_id: call.id, arguments: call.args, sensitive },
      approval_id: approvalId,
    },
    toolCallId: call.id,
    sensitive,
  };
  const { answer } = await state.ask(request, {
    gate: true,
    openRequest: {
      request,
      taskId: input.taskId,
      approval: { id: approvalId, orgId: input.orgId, agentId: input.agentId, kind: 'action', toolName: call.name },
    },
  });
  if (answer.cancelled)
    return {
      ok: false,
      error: { code: 'DISMISSED', message: 'The approval request was dismissed; the action did not run.' },
    };
  if ('approved' in answer && !answer.approved) {
    return {
      ok: false,
      error: {
        code: 'REJECTED',
        message: `The user rejected this action${answer.feedback ? `: ${answer.feedback}` : '.'}`,
      },
    };
  }
  if ('approve_run_scope' in answer && answer.approve_run_scope) state.runScopeGrants.add(call.name);
  return undefined;
}
