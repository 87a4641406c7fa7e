import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { runErrorCodes, type RunEventInput } from '../shared/events.ts';
import { assertTransition, type RunStatus } from '../shared/run-status.ts';
import { failureTypes, type RunOutcome, type RunWorkflowInput, type TokenUsage } from '../shared/run-workflow-types.ts';
import { RunStatusAttr } from '../shared/search-attributes.ts';
import { eventWriteOptions, modelStepOptions } from './activity-options.ts';
import { commentSignal, runStatusQuery, type SteeringComment } from './run-messages.ts';

const { recordProgress } = proxyActivities<Activities>(eventWriteOptions);
const { modelStep } = proxyActivities<Activities>(modelStepOptions);

/** Extra model steps a run may take to respond to steering comments that arrived mid-step. */
const MAX_COMMENT_STEPS = 5;

type ProgressExtra = Partial<Parameters<typeof recordProgress>[0]>;

/** One run of an agent: the run status machine, driven by activities. */
export async function runWorkflow(input: RunWorkflowInput): Promise<RunOutcome> {
  let status: RunStatus = 'pending';
  const comments: SteeringComment[] = [];
  setHandler(runStatusQuery, () => status);
  setHandler(commentSignal, (comment) => void comments.push(comment));

  const record = (key: string, events: RunEventInput[], extra: ProgressExtra = {}) =>
    recordProgress({ runId: input.runId, key, events, ...extra });

  /** Every status move is checked, stored with its events, and mirrored for operators. */
  async function move(to: RunStatus, key: string, events: RunEventInput[], extra: ProgressExtra = {}) {
    assertTransition(status, to);
    await record(key, events, { status: to, ...extra });
    status = to;
    upsertSearchAttributes({ [RunStatusAttr.name]: [to] });
    setCurrentDetails(`**Run ${input.runId}** — status \`${to}\`, mode \`${input.mode}\`, task \`${input.taskId}\``);
  }

  /** Comments join the conversation as user messages, in arrival order, before the next model step. */
  async function applyComments() {
    for (const comment of comments.splice(0)) {
      await record(`comment:${comment.commentId}`, [
        { type: 'CUSTOM', name: 'SYSTEM_STATUS', data: { status: 'comment_applied', comment_id: comment.commentId, content: comment.content } },
      ], { message: { taskId: input.taskId, role: 'user', content: comment.content } });
    }
  }

  await move('executing', 'started', [
    { type: 'RUN_STARTED', thread_id: input.taskId, run_id: input.runId, mode: input.mode, routing_reason: input.routingReason },
  ]);

  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let model: string | undefined;
  try {
    for (let step = 0; ; step++) {
      await applyComments();
      const result = await modelStep({ runId: input.runId, taskId: input.taskId, agentId: input.agentId });
      usage = addUsage(usage, result.usage);
      model = result.model;
      const message = { taskId: input.taskId, role: 'assistant', content: result.text } as const;
      if (comments.length > 0 && step < MAX_COMMENT_STEPS) {
        await record(`step:${step}`, [], { message });
        continue;
      }
      const runResult = { message_id: result.messageId, text: result.text, model: result.model, usage: usageJson(usage), steps: step + 1 };
      await move('completed', 'finished', [{ type: 'RUN_FINISHED', run_id: input.runId, result: runResult }], {
        message,
        result: runResult,
        bill: { usage, model },
      });
      return { status: 'completed', usage };
    }
  } catch (err) {
    const { code, message } = describeFailure(err);
    const details = { workflow_id: workflowInfo().workflowId, attempt_failure: message };
    await move('failed', 'failed', [{ type: 'RUN_ERROR', run_id: input.runId, message, code, details }], {
      error: { code, message },
      bill: { usage, model },
    });
    return { status: 'failed', usage };
  }
}

function describeFailure(err: unknown): { code: string; message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === failureTypes.modelConfig) return { code: runErrorCodes.modelConfig, message: cause.message };
    if (cause.type === failureTypes.model) return { code: runErrorCodes.model, message: cause.message };
  }
  return { code: runErrorCodes.execution, message: err instanceof Error ? err.message : 'the run failed' };
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}

function usageJson(u: TokenUsage) {
  return { input_tokens: u.inputTokens, output_tokens: u.outputTokens };
}
