import {
  ApplicationFailure,
  condition,
  setCurrentDetails,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { AnswerProblem } from '../shared/answer-schemas.ts';
import type { StepUsage } from '../shared/credits.ts';
import type { RunEventInput } from '../shared/events.ts';
import { describeAnswer, type Answer, type PendingRequest } from '../shared/input-requests.ts';
import { answerSchemas } from './lazy-modules.ts';
import { isOrgAdmin } from '../shared/roles.ts';
import { assertTransition, isTerminalStatus, type RunStatus } from '../shared/run-status.ts';
import type {
  RunSettings,
  RunWorkflowInput,
  SandboxRoute,
  TokenUsage,
  ToolCall,
  ToolCallInput,
} from '../shared/run-workflow-types.ts';
import { RunStatusAttr } from '../shared/search-attributes.ts';
import type { ToolServersListing } from '../shared/tool-server-types.ts';
import { statusDelta } from '../shared/run-end.ts';
import { bookkeeping, recordProgress, type ProgressInput, type ProgressStored } from './activities.ts';
import { isCancelling, isStoppingWrite, refuseUnlessActive, running, type Lifecycle } from './run-lifecycle.ts';
import { refusals, type AnswerInput, type SteeringComment } from './run-messages.ts';

type ProgressExtra = Omit<Partial<ProgressInput>, 'runId' | 'key' | 'events'>;

export interface Resolution {
  request: PendingRequest;
  answer: Answer;
  answeredBy: string;
}

/**
 * Everything a run knows while it runs, and the only place its status moves.
 * Message handlers and the main flow share it; comments say where an
 * interleaving matters.
 */
export class RunState {
  status: RunStatus = 'pending';
  pending: PendingRequest | null = null;
  comments: SteeringComment[] = [];
  /** What people asked of the run (pause, cancel) and how far it got; the status says where its work is. */
  life: Lifecycle = running;
  usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  model: string | undefined;
  readonly runScopeGrants = new Set<string>();
  /** Where the sandbox's calls go, once asked; cleared when its host stops answering. */
  sandboxRoute: SandboxRoute | undefined;
  /** A call that may have changed the workspace ran since its last snapshot. */
  sandboxChanged = false;
  /** What the agent's tool servers offered at the run's start; unset for an agent without them. */
  serverTools: ToolServersListing | undefined;
  /** The agent's final answer, stored with the run's terminal write instead of on its own: one transaction fewer per run. */
  unsavedAnswer: ProgressInput['message'];
  /** The RunStatus search attribute as the server has it: set at start (firstRunStatus), then by each move that changes it. */
  private shownStatus = workflowInfo().typedSearchAttributes.get(RunStatusAttr);
  private deferredMove: ProgressInput | undefined;
  private resolution: Resolution | undefined;
  private moves = 0;

  constructor(
    readonly input: RunWorkflowInput,
    public settings: RunSettings,
  ) {}

  record(key: string, events: RunEventInput[], extra: ProgressExtra = {}): Promise<ProgressStored> {
    return this.write(bookkeeping.recordProgress, { runId: this.input.runId, key, events, ...extra });
  }

  /**
   * A write from an update handler (cancel, answer): always a regular activity. A local one
   * would hold the workflow task open while it runs, and when that task fails (an activity
   * completed meanwhile: UnhandledCommand) the server refuses the update to its caller.
   */
  recordFromHandler(key: string, events: RunEventInput[], extra: ProgressExtra = {}): Promise<ProgressStored> {
    return this.write(recordProgress, { runId: this.input.runId, key, events, ...extra });
  }

  private write(store: typeof recordProgress, step: ProgressInput): Promise<ProgressStored> {
    const deferred = this.takeDeferredMove();
    // No extra await without a deferred move: the write is scheduled in the same activation.
    if (!deferred) return store(step);
    return store(deferred).then(() => store(step));
  }

  /**
   * Every status move is checked against the transition table, stored with
   * its events (a STATE_DELTA carrying the new status comes first), and
   * mirrored into the search attribute and the current details for operators.
   */
  async move(to: RunStatus, key: string, events: RunEventInput[] = [], extra: ProgressExtra = {}): Promise<void> {
    assertTransition(this.status, to);
    const answer = isTerminalStatus(to) ? this.unsavedAnswer : undefined;
    await this.record(key, [statusDelta(to), ...events], {
      status: to,
      ...extra,
      ...(answer ? { message: answer } : {}),
    });
    if (answer) this.unsavedAnswer = undefined;
    this.moved(to);
  }

  /**
   * A move whose write rides on the run's next write: the next model step stores it before
   * it streams, or the next record() first (local bookkeeping only: one transaction fewer).
   */
  deferMove(to: RunStatus, key: string): void {
    assertTransition(this.status, to);
    this.deferredMove = { runId: this.input.runId, key, events: [statusDelta(to)], status: to };
    this.moved(to);
  }

  /** The deferred move, for the activity that stores it now. */
  takeDeferredMove(): ProgressInput | undefined {
    const move = this.deferredMove;
    this.deferredMove = undefined;
    return move;
  }

  private moved(to: RunStatus): void {
    this.status = to;
    this.moves++;
    // Only a change is sent: the api starts the workflow showing its first status.
    if (this.shownStatus !== to) {
      upsertSearchAttributes([{ key: RunStatusAttr, value: to }]);
      this.shownStatus = to;
    }
    setCurrentDetails(
      `**Run** \`${this.input.runId}\`\n\n- status: \`${to}\`\n- mode: \`${this.input.mode}\`\n- task: \`${this.input.taskId}\`\n- agent: \`${this.input.agentId}\`` +
        (this.pending ? `\n- waiting on: \`${this.pending.inputType}\` request \`${this.pending.requestId}\`` : ''),
    );
  }

  /**
   * The run's last model step stored the run's end itself (model-step.ts: status completed, the
   * answer, USAGE, RUN_FINISHED and the bill): the workflow mirrors it. A cancel whose STOPPING is
   * still being written is refused by the store (the run ended first) and answers its caller first.
   */
  async endedByStep(): Promise<void> {
    if (!isStoppingWrite(this.life)) this.life = { phase: 'finishing' };
    this.unsavedAnswer = undefined;
    await condition(() => !isStoppingWrite(this.life));
    this.life = { phase: 'finishing' };
    assertTransition(this.status, 'completed');
    this.moved('completed');
  }

  /** What a tool call activity gets: the call and the run it belongs to. */
  toolCallInput(call: ToolCall): ToolCallInput {
    const { runId, taskId, orgId, agentId } = this.input;
    return { runId, taskId, orgId, agentId, toolCallId: call.id, name: call.name, args: call.args };
  }

  /** A fresh deterministic id (the workflow's seeded uuid4). */
  newId(prefix: string): string {
    return `${prefix}_${uuid4().replace(/-/g, '')}`;
  }

  /** A safe point: take a requested pause here and wait for resume. */
  async safePoint(): Promise<void> {
    if (this.life.phase !== 'pausing') return;
    this.life = { phase: 'paused' };
    const n = this.moves;
    await this.move('paused', `paused:${n}`);
    // A cancel leaves the run in `cancelling` and ends this wait by cancelling the run's scope.
    await condition(() => this.life.phase === 'running');
    await this.move('executing', `resumed:${n}`);
  }

  /**
   * Asks a human and waits. Approval gates move the run to awaiting_approval
   * and back. The wait is cancellable: cancelling the run ends it here.
   */
  async ask(request: PendingRequest, extra: ProgressExtra & { gate?: boolean } = {}): Promise<Resolution> {
    const { gate, ...progress } = extra;
    const event: RunEventInput = {
      type: 'CUSTOM',
      name: 'USER_INPUT_REQUIRED',
      data: {
        request_id: request.requestId,
        run_id: this.input.runId,
        input_type: request.inputType,
        prompt: request.prompt,
        ...request.details,
        ...(request.toolCallId ? { tool_call_id: request.toolCallId } : {}),
      },
    };
    const open = { ...progress, openRequest: { request, taskId: this.input.taskId, ...progress.openRequest } };
    this.pending = request; // before the write: an answer may race the write, and is checked against this
    if (gate) await this.move('awaiting_approval', `ask:${request.requestId}`, [event], open);
    else await this.record(`ask:${request.requestId}`, [event], open);
    await condition(() => this.resolution?.request.requestId === request.requestId);
    const resolution = this.resolution!;
    this.resolution = undefined;
    if (gate) await this.move('executing', `asked:${request.requestId}`);
    return resolution;
  }

  /** The answer update's validator: synchronous, throws ApplicationFailure, changes nothing. */
  validateAnswer(input: AnswerInput): void {
    const pending = this.pending;
    refuseUnlessActive(this.life, this.status, this.input.runId);
    if (isCancelling(this.life))
      throw ApplicationFailure.nonRetryable(`Run ${this.input.runId} is not active`, refusals.notActive);
    if (!pending || pending.requestId !== input.requestId || input.runId !== this.input.runId) {
      throw ApplicationFailure.nonRetryable(
        `Request ${input.requestId} is not pending on run ${input.runId} (already answered, or stale)`,
        refusals.notPending,
      );
    }
    if (pending.inputType !== input.inputType) {
      throw invalidAnswer({
        loc: ['input_type'],
        msg: `Request ${input.requestId} expects input_type ${pending.inputType}, not ${input.inputType}`,
        type: 'value_error',
      });
    }
    if (pending.sensitive && !isOrgAdmin(input.answeredBy.role)) {
      throw ApplicationFailure.nonRetryable(
        'Only an organization owner or admin may answer a sensitive approval',
        refusals.forbidden,
      );
    }
    const problem = answerSchemas().answerProblem(pending, input.answer);
    if (problem) throw invalidAnswer(problem);
  }

  /**
   * The answer update's handler. `pending` is cleared synchronously, before the
   * first await, so a second answer racing this one fails validation.
   */
  async acceptAnswer(input: AnswerInput): Promise<{ message: string }> {
    const request = this.pending!;
    this.pending = null;
    const answer = input.answer;
    const approved = !answer.cancelled && 'approved' in answer ? answer.approved : undefined;
    const grant =
      request.inputType === 'action_approval' &&
      approved &&
      !answer.cancelled &&
      'approve_always' in answer &&
      answer.approve_always
        ? {
            orgId: this.input.orgId,
            agentId: this.input.agentId,
            toolName: request.details.action!.tool_name,
            grantedBy: input.answeredBy.userId,
          }
        : undefined;
    const feedback = !answer.cancelled && 'feedback' in answer ? answer.feedback : undefined;
    await this.recordFromHandler(
      `answer:${request.requestId}`,
      [
        {
          type: 'CUSTOM',
          name: 'SYSTEM_STATUS',
          data: {
            status: answer.cancelled ? 'input_dismissed' : 'input_received',
            request_id: request.requestId,
            // Who answered, for a run's trace (the stored request keeps it too).
            answered_by: input.answeredBy.userId,
            ...describeAnswer(request, answer),
          },
        },
      ],
      {
        resolveRequest: {
          requestId: request.requestId,
          status: answer.cancelled ? 'dismissed' : 'answered',
          answer,
          answeredBy: input.answeredBy.userId,
          approval: request.details.approval_id
            ? { status: answer.cancelled ? 'cancelled' : approved ? 'approved' : 'rejected', feedback }
            : undefined,
          grant,
        },
      },
    );
    this.resolution = { request, answer, answeredBy: input.answeredBy.userId };
    return {
      message: answer.cancelled
        ? 'Request dismissed; the agent was told and continues'
        : 'Answer accepted; the agent continues',
    };
  }

  /** Tokens of each model call, for the USAGE event. */
  readonly steps: StepUsage[] = [];

  addUsage(usage: TokenUsage, model: string, step: string): void {
    this.steps.push({ step, model, input_tokens: usage.inputTokens, output_tokens: usage.outputTokens });
    this.usage = {
      inputTokens: this.usage.inputTokens + usage.inputTokens,
      outputTokens: this.usage.outputTokens + usage.outputTokens,
    };
    this.model = model;
  }
}

/** A refused answer: the api answers 422 with the problem's place in the request body (run-updates.ts). */
function invalidAnswer(problem: AnswerProblem): ApplicationFailure {
  return ApplicationFailure.create({
    message: problem.msg,
    type: refusals.invalidAnswer,
    nonRetryable: true,
    details: [problem],
  });
}
