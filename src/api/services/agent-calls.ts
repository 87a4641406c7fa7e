import type { AgentContext, Caller } from '../../auth/caller.ts';
import type { ApiDeps } from '../deps.ts';
import type { RunEvent } from '../../shared/events.ts';
import { forbidden, invalid } from '../../shared/domain-error.ts';
import type { Answer, InputType, RequestDetails } from '../../shared/input-requests.ts';
import { runRequestSchema } from '../../shared/run-request.ts';
import { answerFromText } from '../../shared/text-answers.ts';
import { loadUsableAgent } from './agent-access.ts';
import { controlTaskRun } from './run-control.ts';
import { followRunEvents } from './run-follow.ts';
import { startRun } from './start-run.ts';
import { answerTaskInput, pendingInputOf } from './task-input.ts';

/** One call of an agent by a client that waits for its answer (an MCP tool call). */
export interface AgentCallInput {
  message: string;
  /** Continue this task: answer its pending question with `message`, or start its next run. */
  task_id?: string;
  mode?: 'fast' | 'deep';
}

/** A question a run waits on, with what its answer needs. */
export interface PendingQuestion {
  requestId: string;
  runId: string;
  taskId: string;
  inputType: InputType;
  prompt: string;
  details: RequestDetails;
}

export interface AgentCallHooks {
  /** Aborted when the caller stops waiting: the call returns at once; the run goes on. */
  signal: AbortSignal;
  /** The run the call follows, as soon as it is known (awaited before the run is followed). */
  onRun?(run: { runId: string; taskId: string }): void | Promise<void>;
  /** Every event of the run after the call's starting point, in order, with its seq, for progress. */
  onEvent?(event: RunEvent, seq: number): void;
  /** Asks the person; absent when the client cannot, and the call then ends with the question. */
  ask?(question: PendingQuestion): Promise<Answer>;
}

export interface RunSummary {
  runId: string;
  taskId: string;
  usage: Record<string, unknown> | null;
  artifacts: { artifact_id: string; title?: unknown; kind?: unknown; url?: unknown }[];
}

export type AgentCallOutcome =
  | (RunSummary & { status: 'completed'; text: string })
  | (RunSummary & { status: 'failed' | 'cancelled'; error: { code: string; message: string } })
  | (RunSummary & { status: 'input_required'; question: PendingQuestion })
  | (RunSummary & { status: 'detached' });

/** The agent as the caller may use it (404/403 otherwise; guests only customer-facing agents). */
export async function usableAgentFor(deps: ApiDeps, caller: Caller, agentId: string): Promise<AgentContext> {
  const agent = await loadUsableAgent(deps.db, agentId, caller);
  if (caller.role === 'guest' && !agent.customerFacing) throw forbidden('Guests may only use customer-facing agents');
  return agent;
}

/**
 * Runs the agent on `message` and waits for the run's end by reading its durable event log.
 * With `task_id`, a question the task's run waits on is answered with `message` (as text:
 * answerFromText) and the call follows that run; otherwise the task's next run starts. A question
 * asked meanwhile goes to `hooks.ask`, or ends the call with `input_required`.
 */
export async function callAgent(
  deps: ApiDeps,
  caller: Caller,
  agent: AgentContext,
  input: AgentCallInput,
  hooks: AgentCallHooks,
): Promise<AgentCallOutcome> {
  const run = await startAgentCall(deps, caller, agent, input);
  await hooks.onRun?.(run);
  return followAgentCall(deps, caller, agent, run, 0, hooks);
}

/**
 * Follows the call's run to its end, as callAgent does; `hooks.onEvent` hears only the events after
 * `afterSeq` (a resumed stream continues there), though the whole log is read for usage and artifacts.
 */
export async function followAgentCall(
  deps: ApiDeps,
  caller: Caller,
  agent: AgentContext,
  run: { runId: string; taskId: string },
  afterSeq: number,
  hooks: AgentCallHooks,
): Promise<AgentCallOutcome> {
  const summary: RunSummary = { ...run, usage: null, artifacts: [] };
  for await (const { seq, payload: event } of followRunEvents(deps.hub, run.runId, 0, hooks.signal)) {
    if (seq > afterSeq) hooks.onEvent?.(event, seq);
    if (event.type === 'RUN_FINISHED') {
      const result = event.result as { text?: unknown; usage?: Record<string, unknown> };
      const usage = result.usage ?? summary.usage;
      return { ...summary, usage, status: 'completed', text: typeof result.text === 'string' ? result.text : '' };
    }
    if (event.type === 'RUN_ERROR') {
      const status = event.code === 'CANCELLED' ? 'cancelled' : 'failed';
      return { ...summary, status, error: { code: event.code, message: event.message } };
    }
    if (event.type !== 'CUSTOM') continue;
    if (event.name === 'USAGE') summary.usage = event.data;
    if (event.name === 'ARTIFACT_CREATED') summary.artifacts.push(event.data as RunSummary['artifacts'][number]);
    if (event.name !== 'USER_INPUT_REQUIRED') continue;
    const question = await openQuestion(deps, caller, agent, run.taskId, event.data.request_id);
    if (!question) continue; // answered already (the log is read from the run's start)
    if (!hooks.ask) return { ...summary, status: 'input_required', question };
    const answer = await hooks.ask(question);
    if (hooks.signal.aborted) break;
    await answerTaskInput(deps, caller, agent, run.taskId, { ...question, answer });
  }
  return { ...summary, status: 'detached' };
}

/** Cancels the run the task is on (a client cancelled its call). */
export async function cancelAgentCall(deps: ApiDeps, caller: Caller, agent: AgentContext, taskId: string) {
  return controlTaskRun(deps, caller, agent, taskId, 'cancel');
}

/** Answers the task's pending question with `input.message`, or starts the task's next run: the run to follow. */
export async function startAgentCall(
  deps: ApiDeps,
  caller: Caller,
  agent: AgentContext,
  input: AgentCallInput,
): Promise<{ runId: string; taskId: string }> {
  if (input.task_id) {
    const question = await openQuestion(deps, caller, agent, input.task_id);
    if (question) {
      const answer = answerFromText(question, input.message);
      if (typeof answer === 'string') throw invalid(`The run waits for an answer to "${question.prompt}": ${answer}`);
      await answerTaskInput(deps, caller, agent, input.task_id, { ...question, answer });
      return { runId: question.runId, taskId: input.task_id };
    }
  }
  const body = runRequestSchema.parse({
    messages: [{ role: 'user', content: input.message }],
    stream: false,
    ...(input.task_id ? { task_id: input.task_id } : {}),
    ...(input.mode ? { mode: input.mode } : {}),
  });
  const started = await startRun(deps, caller, agent, body, undefined, { client: 'mcp' });
  return { runId: started.runId, taskId: started.taskId };
}

/** The task's open question (the one named, when `requestId` is given), or undefined. */
async function openQuestion(
  deps: ApiDeps,
  caller: Caller,
  agent: AgentContext,
  taskId: string,
  requestId?: unknown,
): Promise<PendingQuestion | undefined> {
  const pending = await pendingInputOf(deps.db, caller, agent, taskId);
  if (!pending.pending || !pending.request) return undefined;
  const { request_id, run_id, input_type, prompt, created_at: _c, tool_call_id: _t, ...details } = pending.request;
  if (requestId !== undefined && request_id !== requestId) return undefined;
  return { requestId: request_id, runId: run_id, taskId, inputType: input_type as InputType, prompt, details };
}
