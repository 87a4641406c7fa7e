import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
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
import { runStatusQuery } from './run-messages.ts';

const { recordProgress } = proxyActivities<Activities>(eventWriteOptions);
const { modelStep } = proxyActivities<Activities>(modelStepOptions);

/** One run of an agent: the run status machine, driven by activities. */
export async function runWorkflow(input: RunWorkflowInput): Promise<RunOutcome> {
  let status: RunStatus = 'pending';
  setHandler(runStatusQuery, () => status);

  /** Every status move is checked, stored with its events, and mirrored for operators. */
  async function move(to: RunStatus, key: string, events: RunEventInput[], extra: Partial<Parameters<typeof recordProgress>[0]> = {}) {
    assertTransition(status, to);
    await recordProgress({ runId: input.runId, key, status: to, events, ...extra });
    status = to;
    upsertSearchAttributes({ [RunStatusAttr.name]: [to] });
  }

  await move('executing', 'started', [
    { type: 'RUN_STARTED', thread_id: input.taskId, run_id: input.runId, mode: input.mode, routing_reason: input.routingReason },
  ]);

  try {
    const step = await modelStep({ runId: input.runId, taskId: input.taskId, agentId: input.agentId });
    const result = { message_id: step.messageId, text: step.text, model: step.model, usage: usageJson(step.usage) };
    await move('completed', 'finished', [{ type: 'RUN_FINISHED', run_id: input.runId, result }], {
      assistantMessage: { taskId: input.taskId, content: step.text },
      result,
      bill: { usage: step.usage, model: step.model },
    });
    return { status: 'completed', usage: step.usage };
  } catch (err) {
    const { code, message } = describeFailure(err);
    const details = { workflow_id: workflowInfo().workflowId, attempt_failure: message };
    await move('failed', 'failed', [{ type: 'RUN_ERROR', run_id: input.runId, message, code, details }], {
      error: { code, message },
      bill: { usage: { inputTokens: 0, outputTokens: 0 } },
    });
    return { status: 'failed', usage: { inputTokens: 0, outputTokens: 0 } };
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

function usageJson(u: TokenUsage) {
  return { input_tokens: u.inputTokens, output_tokens: u.outputTokens };
}
