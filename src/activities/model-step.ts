import { SpanStatusCode, trace } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import { appendEvents, RunGoneError } from '../db/event-log.ts';
import { agentModelSettingsSchema } from '../shared/agent-settings.ts';
import { toolCatalog, type ToolDefinition } from '../shared/tools/index.ts';
import { loadConversation } from './conversation.ts';
import type { ActivityDeps } from './deps.ts';
import { recordRunProgress, type RecordProgressInput } from './run-progress.ts';
import { injectFault } from '../processes/faults.ts';
import { markInfrastructure, withAttemptLimit } from '../connections/transient-errors.ts';
import { CALL_ATTEMPTS, failureTypes, type ToolCall, type TokenUsage } from '../shared/run-workflow-types.ts';
import { EventBatcher } from './event-batcher.ts';
import { countModelTokens } from './metrics.ts';
import { discardAttempt, keptAttemptUsage, recordAttemptUsage, type AttemptRef } from '../db/model-attempts.ts';
import { findCompletedEnd } from '../db/run-steps.ts';
import { addUsage, type StepUsage } from '../shared/credits.ts';
import type { RunEventInput } from '../shared/events.ts';
import { FINISHED_KEY, runFinishedEvent, statusDelta } from '../shared/run-end.ts';
import { attemptMessageId, retryPreamble } from './model-attempts.ts';
import { loadAgentModel, modelCallFailure } from './models/agent-model.ts';
import type { ToolSpec } from './models/provider.ts';

export interface ModelStepInput {
  runId: string;
  taskId: string;
  agentId: string;
  step: number;
  /** False on the last allowed step: the model must answer in text. */
  allowTools: boolean;
  /** Tools of the agent's MCP servers, as listed at the run's start (absent for an agent without servers). */
  serverTools?: ToolSpec[];
  /** Tools the run's caller runs itself (RunWorkflowInput.clientTools); the workflow ends the run when one is called. */
  clientTools?: ToolSpec[];
  /** Added to the system prompt: which tool servers are down for this run. */
  toolNote?: string;
  /** The run's org, for log lines (the worker's log context reads it instead of looking the run up); absent in steps scheduled before it came. */
  orgId?: string;
  /** A status move of the run stored before the step streams (RunState.deferMove): one transaction fewer per run. */
  enter?: RecordProgressInput;
  /**
   * Set when an answer ends the run (the agent loop's `answerWithEnd`): given an answer without tool
   * calls, the step stores the run's end itself (status completed, the answer, USAGE and RUN_FINISHED,
   * the bill) in the transaction of its last events, as the workflow's terminal write would have
   * stored it, unless a cancel or a steering comment got in first (RunStep.unlessInterrupted). One
   * local activity, one workflow activation and one transaction fewer per run.
   */
  finish?: RunEndSoFar;
}

/** What the workflow knows of the run before this step, for its end. */
export interface RunEndSoFar {
  /** The run's usage before this step. */
  usage: TokenUsage;
  /** Its model calls before this step, for the USAGE event. */
  steps: StepUsage[];
  /** This step's name in the USAGE event's steps. */
  label: string;
  /** The run's `result.steps` when this step ends it. */
  stepCount: number;
}

export interface ModelStepResult {
  /** Set when the step streamed text. */
  messageId?: string;
  text: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  model: string;
  /** The step stored the run's end (ModelStepInput.finish). */
  ended?: boolean;
  /** The step could have ended the run, but a cancel or a comment was stored first. */
  interrupted?: boolean;
}

export function createModelStepActivities(deps: ActivityDeps) {
  const { db, logger } = deps;
  return {
    /**
     * One model call. Text and tool-call events go straight to the run's event
     * log in small batches (they never enter workflow history); the workflow
     * gets the final text and tool calls. A retried attempt closes what the
     * earlier ones left open, names them as discarded, and streams a new
     * message with a new message_id (see model-attempts.ts).
     */
    async modelStep(input: ModelStepInput): Promise<ModelStepResult> {
      const ctx = Context.current();
      const limit = {
        attempt: ctx.info.attempt,
        attempts: CALL_ATTEMPTS,
        cancelled: () => ctx.cancellationSignal.aborted,
      };
      return withAttemptLimit('model call', failureTypes.model, limit, () => streamModelStep(input));
    },
  };

  async function streamModelStep(input: ModelStepInput): Promise<ModelStepResult> {
    const ctx = Context.current();
    const [{ model: resolved, settings }, messages] = await Promise.all([
      loadAgentModel(deps, input.agentId),
      loadConversation(db, input.taskId),
      input.enter && recordRunProgress(deps, input.enter),
    ]);
    const attempt: AttemptRef = { runId: input.runId, activityId: ctx.info.activityId, attempt: ctx.info.attempt };
    // A retry of a step that had stored the run's end (its completion never reached Temporal) answers with that end.
    if (input.finish && attempt.attempt > 1) {
      const ended = await findCompletedEnd(db, input.runId);
      if (ended)
        return {
          ...answerOf(ended),
          toolCalls: [],
          usage: await keptAttemptUsage(db, attempt),
          model: resolved.provider.label,
          ended: true,
        };
    }
    const tools = input.allowTools
      ? [...enabledTools(settings), ...(input.serverTools ?? []), ...(input.clientTools ?? [])]
      : [];
    // No heartbeat per batch: the SDK sends a step's first heartbeat at once, and each one is a write
    // on the Temporal server, while a fast step is over long before the interval's first beat below.
    const batcher = new EventBatcher(deps.deltaFlushMs, async (events) => {
      await appendEvents(db, input.runId, events).catch(markInfrastructure);
    });
    let messageId: string | undefined;
    let text = '';
    const toolCalls: ToolCall[] = [];
    const started = new Set<string>();
    let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
    /** The attempt's usage, being stored beside the step's last events (one round trip fewer than one after the other). */
    let usageWrite: Promise<void> | undefined;
    let interrupted = false;
    if (attempt.attempt > 1) {
      for (const event of await retryPreamble(db, attempt, input.step, 'model_step')) batcher.push(event);
    }
    // Heartbeats carry cancellation into the activity, also while the model is silent.
    const beat = setInterval(() => ctx.heartbeat(), 1000);
    const ended = new Set<string>();
    let closed = false;
    /** Ends what the attempt opened, once (the catch below runs it again when the last writes fail). */
    const closeOpen = () => {
      if (closed) return;
      closed = true;
      if (messageId && text) batcher.push({ type: 'TEXT_MESSAGE_END', message_id: messageId });
      for (const id of started) if (!ended.has(id)) batcher.push({ type: 'TOOL_CALL_END', tool_call_id: id });
    };
    // A span per model call (a no-op unless tracing is on), child of the activity's span.
    const span = trace.getTracer('agent-run-service').startSpan('model call', {
      attributes: {
        'gen_ai.request.model': resolved.provider.label,
        'ars.run_id': input.runId,
        'ars.step': input.step,
        'ars.attempt': attempt.attempt,
      },
    });
    try {
      const stream = resolved.provider.stream({
        system: input.toolNote
          ? [resolved.systemPrompt, input.toolNote].filter(Boolean).join('\n\n')
          : resolved.systemPrompt,
        messages,
        tools,
        signal: ctx.cancellationSignal,
      });
      for await (const chunk of stream) {
        switch (chunk.type) {
          case 'text':
            if (!messageId) {
              messageId = attemptMessageId(attempt);
              batcher.push({ type: 'TEXT_MESSAGE_START', message_id: messageId, role: 'assistant' });
            }
            text += chunk.text;
            batcher.push({ type: 'TEXT_MESSAGE_CONTENT', message_id: messageId, delta: chunk.text });
            break;
          case 'reasoning':
            batcher.push({ type: 'CUSTOM', name: 'THOUGHT', data: { text: chunk.text, step: input.step } });
            break;
          case 'tool-start':
            started.add(chunk.id);
            batcher.push({
              type: 'TOOL_CALL_START',
              tool_call_id: chunk.id,
              tool_call_name: chunk.name,
              metadata: { step: input.step },
            });
            break;
          case 'tool-args':
            batcher.push({ type: 'TOOL_CALL_ARGS', tool_call_id: chunk.id, delta: chunk.delta });
            break;
          case 'tool-call':
            if (!started.has(chunk.id)) {
              started.add(chunk.id);
              batcher.push({
                type: 'TOOL_CALL_START',
                tool_call_id: chunk.id,
                tool_call_name: chunk.name,
                metadata: { step: input.step },
              });
              batcher.push({ type: 'TOOL_CALL_ARGS', tool_call_id: chunk.id, delta: JSON.stringify(chunk.args ?? {}) });
            }
            ended.add(chunk.id);
            batcher.push({ type: 'TOOL_CALL_END', tool_call_id: chunk.id });
            toolCalls.push({ id: chunk.id, name: chunk.name, args: chunk.args ?? {} });
            break;
          case 'finish':
            usage = chunk.usage;
            countModelTokens(usage, resolved.provider.label);
            usageWrite = recordAttemptUsage(db, attempt, usage).catch(markInfrastructure);
            usageWrite.catch(() => {}); // awaited below; a failure surfaces there
            break;
        }
      }
      // A stream cut by cancellation (the run cancelled, the worker shutting down) may end without an
      // error: its text is partial and must not become the step's answer.
      ctx.cancellationSignal.throwIfAborted();
      closeOpen();
      if (input.finish && toolCalls.length === 0) {
        const answer = { text, messageId, usage, model: resolved.provider.label };
        const pending = await batcher.take();
        const [stored] = await Promise.all([storeRunEnd(deps, input, input.finish, answer, pending), usageWrite]);
        injectFault('after-run-end-stored');
        if (!stored.refused) return { ...answer, toolCalls, ended: true };
        // A cancel or a comment came first: the last events are written as any batch (none when the run had ended).
        if (stored.refused === 'interrupted') for (const event of pending) batcher.push(event);
        interrupted = true;
      }
      await Promise.all([batcher.flush(), usageWrite]);
    } catch (err) {
      // Close what this attempt opened so the history stays well-formed; a retry discards it and starts afresh.
      closeOpen();
      await batcher.flush().catch(() => {});
      if (usageWrite) await usageWrite.then(() => discardAttempt(db, attempt)).catch(() => {});
      if (ctx.cancellationSignal.aborted) throw err;
      if (!(err instanceof RunGoneError)) logger.warn({ runId: input.runId, err: String(err) }, 'model step failed');
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(err) });
      throw modelCallFailure('model call', err, ctx.info.attempt);
    } finally {
      clearInterval(beat);
      span.setAttributes({
        'gen_ai.usage.input_tokens': usage.inputTokens,
        'gen_ai.usage.output_tokens': usage.outputTokens,
      });
      span.end();
    }
    return {
      messageId,
      text,
      toolCalls,
      usage,
      model: resolved.provider.label,
      ...(interrupted ? { interrupted } : {}),
    };
  }

  /**
   * The run's end, stored by its last model step with the step's last events (`pending`), as the
   * workflow's terminal write (run-workflow.ts `finish`) stores it. When a cancel or a comment came
   * first, nothing is stored (`refused`), and the caller writes `pending` as any batch.
   */
  function storeRunEnd(
    deps: ActivityDeps,
    input: ModelStepInput,
    before: RunEndSoFar,
    answer: RunAnswer,
    pending: RunEventInput[],
  ) {
    const usage = addUsage(before.usage, answer.usage);
    const steps = [
      ...before.steps,
      {
        step: before.label,
        model: answer.model,
        input_tokens: answer.usage.inputTokens,
        output_tokens: answer.usage.outputTokens,
      },
    ];
    const result = { outcome: 'completed', text: answer.text, message_id: answer.messageId, steps: before.stepCount };
    return recordRunProgress(deps, {
      runId: input.runId,
      key: FINISHED_KEY,
      status: 'completed',
      streamed: pending,
      events: [statusDelta('completed'), runFinishedEvent(input.runId, result, answer.model, usage)],
      result,
      message: { taskId: input.taskId, role: 'assistant', content: answer.text },
      bill: { usage, model: answer.model, steps },
      unlessInterrupted: true,
    }).catch(markInfrastructure);
  }
}

/** A model step's answer. */
interface RunAnswer {
  text: string;
  messageId?: string;
  usage: TokenUsage;
  model: string;
}

/** The answer a completed run stored in its `result`. */
function answerOf(result: Record<string, unknown>): { text: string; messageId?: string } {
  return {
    text: typeof result.text === 'string' ? result.text : '',
    ...(typeof result.message_id === 'string' ? { messageId: result.message_id } : {}),
  };
}

/** Each catalog tool as the model is shown it; its JSON Schema is made once per process, not per step. */
const toolSpecs = new Map<string, ToolSpec>();
function toolSpec(t: ToolDefinition): ToolSpec {
  let spec = toolSpecs.get(t.name);
  if (!spec) {
    spec = {
      name: t.name,
      description: t.description,
      parameters: z.toJSONSchema(t.input, { io: 'input' }) as Record<string, unknown>,
    };
    toolSpecs.set(t.name, spec);
  }
  return spec;
}

/** The catalog tools this agent may call, as JSON Schemas for the model. */
export function enabledTools(rawSettings: unknown): ToolSpec[] {
  const settings = agentModelSettingsSchema.safeParse(rawSettings ?? {});
  const allowed = settings.success ? settings.data.tools : undefined;
  return [...toolCatalog.values()].filter((t) => !allowed || allowed.includes(t.name)).map(toolSpec);
}
