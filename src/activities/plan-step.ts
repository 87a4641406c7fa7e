import { Context } from '@temporalio/activity';
import { markInfrastructure, withAttemptLimit } from '../connections/transient-errors.ts';
import { discardAttempt, discardEarlierAttempts, recordAttemptUsage, type AttemptRef } from '../db/model-attempts.ts';
import { countModelTokens } from './metrics.ts';
import { CALL_ATTEMPTS, failureTypes, type TokenUsage } from '../shared/run-workflow-types.ts';
import { loadConversation } from './conversation.ts';
import type { ActivityDeps } from './deps.ts';
import { enabledTools } from './model-step.ts';
import { loadAgentModel, modelCallFailure } from './models/agent-model.ts';

const PLANNING_PROMPT =
  'Before acting, write a short plan for the latest request: a numbered list of 2 to 7 concrete steps, ' +
  'one line each, and nothing else.';
const MAX_STEPS = 7;

export interface PlanStepInput {
  runId: string;
  taskId: string;
  agentId: string;
  /** Tools of the agent's MCP servers, as listed at the run's start (absent for an agent without servers). */
  serverTools?: { name: string; description: string }[];
  /** Which tool servers are down for this run, as the model steps are told. */
  toolNote?: string;
}

export interface PlanStepResult {
  steps: string[];
  usage: TokenUsage;
  model: string;
}

/** Lines "1. Do x" / "2) Do y" / "- Do z" of a model's plan. */
export function parsePlan(text: string): string[] {
  const steps = text
    .split('\n')
    .map((line) => /^\s*(?:\d+[.)]|[-*•])\s+(.+?)\s*$/.exec(line)?.[1])
    .filter((s): s is string => Boolean(s));
  return (steps.length ? steps : [text.trim() || 'Answer the request']).slice(0, MAX_STEPS);
}

/**
 * The tools the executing steps will be offered (names and descriptions), so the plan can name them. Only
 * for a run with tool servers: without them the planner's prompt stays what it was.
 */
export function plannerToolLines(input: PlanStepInput, settings: unknown): string[] {
  if (!input.serverTools) return [];
  const tools = [...enabledTools(settings), ...input.serverTools].map((t) => `- ${t.name}: ${oneLine(t.description)}`);
  return [`The steps can use these tools:\n${tools.join('\n')}`, ...(input.toolNote ? [input.toolNote] : [])];
}

/** A description on one line, cut: the plan needs to know what a tool is for, not how to call it. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 300);

export function createPlanStepActivities(deps: ActivityDeps) {
  return {
    /** Deep mode's planning step: one model call that returns the plan's steps. */
    async planStep(input: PlanStepInput): Promise<PlanStepResult> {
      const ctx = Context.current();
      const limit = {
        attempt: ctx.info.attempt,
        attempts: CALL_ATTEMPTS,
        cancelled: () => ctx.cancellationSignal.aborted,
      };
      return withAttemptLimit('planning call', failureTypes.model, limit, () => plan(input));
    },
  };

  async function plan(input: PlanStepInput): Promise<PlanStepResult> {
    const ctx = Context.current();
    const { model: resolved, settings } = await loadAgentModel(deps, input.agentId);
    const messages = await loadConversation(deps.db, input.taskId);
    const system = [resolved.systemPrompt, PLANNING_PROMPT, ...plannerToolLines(input, settings)]
      .filter(Boolean)
      .join('\n\n');
    let text = '';
    let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
    const attempt: AttemptRef = { runId: input.runId, activityId: ctx.info.activityId, attempt: ctx.info.attempt };
    if (attempt.attempt > 1) await discardEarlierAttempts(deps.db, attempt);
    const beat = setInterval(() => ctx.heartbeat(), 1000);
    try {
      for await (const chunk of resolved.provider.stream({
        system,
        messages,
        tools: [],
        purpose: 'plan',
        signal: ctx.cancellationSignal,
      })) {
        if (chunk.type === 'text') text += chunk.text;
        else if (chunk.type === 'finish') {
          usage = chunk.usage;
          countModelTokens(usage, resolved.provider.label);
          await recordAttemptUsage(deps.db, attempt, usage).catch(markInfrastructure);
        }
      }
      ctx.cancellationSignal.throwIfAborted(); // a cut stream is a partial plan, never the plan
    } catch (err) {
      await discardAttempt(deps.db, attempt).catch(() => {});
      if (ctx.cancellationSignal.aborted) throw err;
      throw modelCallFailure('planning call', err, ctx.info.attempt);
    } finally {
      clearInterval(beat);
    }
    return { steps: parsePlan(text), usage, model: resolved.provider.label };
  }
}
