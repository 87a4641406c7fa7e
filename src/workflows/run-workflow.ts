import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  CancelledFailure,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { runErrorCodes } from '../shared/run-error-codes.ts';
import { isTerminalStatus } from '../shared/run-status.ts';
import { FINISHED_KEY, runFinishedEvent, stoppingEvent, STOPPING_KEY } from '../shared/run-end.ts';
import { RUN_STARTED_KEY, runStartedEvents } from '../shared/run-started.ts';
import {
  defaultRunSettings,
  failureTypes,
  type RunOutcome,
  type RunWorkflowInput,
} from '../shared/run-workflow-types.ts';
import { snapshotSandbox } from './activities.ts';
import { runAgentLoop } from './agent-loop.ts';
import { snapshotOnHost } from './sandbox-routing.ts';
import { runPlanned } from './plan.ts';
import {
  answerUpdate,
  cancelUpdate,
  commentSignal,
  pauseUpdate,
  pendingRequestQuery,
  refusals,
  resumeUpdate,
  runStatusQuery,
} from './run-messages.ts';
import { currentPaths, patchedPaths, type RunPaths } from './run-paths.ts';
import { RunState } from './run-state.ts';

/** One run of an agent: the run status machine, driven by activities and by people. Every run starts as this type. */
export async function agentRun(input: RunWorkflowInput): Promise<RunOutcome> {
  return runAgent(input, currentPaths);
}

/**
 * The same run, for runs started before `agentRun`: it asks the patches of the paths that
 * changed (run-paths.ts), so those runs continue and replay as they ran. Registered for as
 * long as such a run may be open or replayed.
 */
export async function runWorkflow(input: RunWorkflowInput): Promise<RunOutcome> {
  return runAgent(input, patchedPaths);
}

async function runAgent(input: RunWorkflowInput, paths: RunPaths): Promise<RunOutcome> {
  // The run's own settings replace these before its first step (its input, or the agent's now).
  const state = new RunState(input, defaultRunSettings, paths);
  const work = new CancellationScope();
  registerHandlers(state, work);

  try {
    return await runToEnd(state, work);
  } finally {
    if (state.usedSandbox) await snapshotWorkspace(state);
    // An update still writing (a cancel's STOPPING) answers its caller before the run closes.
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  }
}

async function runToEnd(state: RunState, work: CancellationScope): Promise<RunOutcome> {
  const { input } = state;
  try {
    await work.run(async () => {
      state.settings = input.settings ?? (await state.bookkeeping.loadRunSettings({ agentId: input.agentId }));
      if (!input.startRecorded) await state.record(RUN_STARTED_KEY, runStartedEvents(input));
      if (input.mode === 'deep') {
        const outcome = await runPlanned(state);
        if (outcome.kind === 'rejected') {
          const text = `The plan was not approved, so the agent stopped${outcome.feedback ? ` (feedback: ${outcome.feedback})` : ''}.`;
          await finish(state, {
            outcome: 'plan_rejected',
            text,
            plan: outcome.steps,
            ...(outcome.feedback ? { feedback: outcome.feedback } : {}),
          });
        } else {
          await finish(state, {
            outcome: 'completed',
            text: outcome.result.text,
            message_id: outcome.result.messageId,
            plan: outcome.steps,
          });
        }
      } else {
        // With local bookkeeping the move is stored by the first model step, before it streams.
        if (state.localBookkeeping) state.deferMove('executing', 'executing');
        else await state.move('executing', 'executing');
        const result = await runAgentLoop(state, 'main', { answerWithEnd: state.localBookkeeping });
        if (result.ended) await state.endedByStep();
        else
          await finish(state, {
            outcome: 'completed',
            text: result.text,
            message_id: result.messageId,
            steps: result.steps,
          });
      }
    });
    return { status: 'completed', usage: state.usage };
  } catch (err) {
    if (isCancellation(err) || state.cancelRequested) {
      const ended = await CancellationScope.nonCancellable(() => endCancelled(state));
      return { status: ended, usage: state.usage };
    }
    const { code, message } = describeFailure(err);
    await CancellationScope.nonCancellable(() => endFailed(state, code, message));
    return { status: 'failed', usage: state.usage };
  }
}

/** After the outcome is stored: keep the agent's workspace, so another host can restore it. */
async function snapshotWorkspace(state: RunState): Promise<void> {
  // Routed runs snapshot on the sandbox's host, when a call changed the workspace since its last snapshot;
  // with no route (its host stopped answering) there is nothing newer to save.
  if (state.sandboxRouting) return state.sandboxChanged ? snapshotOnHost(state) : undefined;
  const { orgId, agentId, runId } = state.input;
  await CancellationScope.nonCancellable(() => snapshotSandbox({ orgId, agentId, runId })).catch(() => undefined);
}

function registerHandlers(state: RunState, work: CancellationScope): void {
  setHandler(runStatusQuery, () => state.status);
  setHandler(pendingRequestQuery, () => state.pending);
  setHandler(commentSignal, (comment) => void state.comments.push(comment));
  setHandler(answerUpdate, (answer) => state.acceptAnswer(answer), {
    validator: (answer) => state.validateAnswer(answer),
  });

  const refuseUnlessActive = (_request?: { requestedBy: string }) => {
    if (isTerminalStatus(state.status) || state.finishing)
      throw ApplicationFailure.nonRetryable(`Run ${state.input.runId} is not active`, refusals.notActive);
  };
  setHandler(
    cancelUpdate,
    async (_request) => {
      if (!state.cancelRequested) {
        state.cancelRequested = true;
        state.stopping = true;
        try {
          const stored = await state.recordFromHandler(STOPPING_KEY, [stoppingEvent(state.input.runId)]);
          // The run's last model step stored the run's end first (RunState.endedByStep): there is nothing left to cancel.
          if (stored?.refused) state.cancelRequested = false;
          else {
            state.stoppingWritten = true;
            work.cancel();
          }
        } finally {
          state.stopping = false;
        }
      } else await condition(() => !state.stopping); // a cancel before this one is still writing its STOPPING
      if (!state.cancelRequested)
        throw ApplicationFailure.nonRetryable(`Run ${state.input.runId} is not active`, refusals.notActive);
      return { message: 'Cancelling: the run stops now and ends cancelled' };
    },
    { validator: refuseUnlessActive },
  );
  setHandler(
    pauseUpdate,
    (_request) => {
      state.pauseRequested = true;
      return Promise.resolve({
        message: 'Pause requested: the run pauses at its next safe point (it may finish first)',
      });
    },
    {
      validator: (_request) => {
        refuseUnlessActive();
        if (state.cancelRequested)
          throw ApplicationFailure.nonRetryable('The run is being cancelled', refusals.notActive);
        if (state.status === 'paused' || state.pauseRequested)
          throw ApplicationFailure.nonRetryable('The run is already paused or pausing', refusals.notActive);
        if (state.pending)
          throw ApplicationFailure.nonRetryable(
            'The run is waiting for input; answer or cancel it instead',
            refusals.notActive,
          );
      },
    },
  );
  setHandler(
    resumeUpdate,
    (_request) => {
      state.pauseRequested = false;
      return Promise.resolve({ message: 'Resumed' });
    },
    {
      validator: (_request) => {
        refuseUnlessActive();
        if (!state.pauseRequested) throw ApplicationFailure.nonRetryable('The run is not paused', refusals.notActive);
      },
    },
  );
}

/**
 * The terminal write: USAGE, then RUN_FINISHED, with the bill, in one transaction. A cancel
 * accepted before this point wins, even if the agent's work ended while STOPPING was being
 * written: the caller was told the run ends cancelled, so it does.
 */
async function finish(state: RunState, result: Record<string, unknown>): Promise<void> {
  if (state.cancelRequested && state.paths.cancelWins())
    throw new CancelledFailure('cancelled before the outcome was stored');
  state.finishing = true; // from here cancel and pause are refused: the outcome is decided
  await CancellationScope.nonCancellable(() =>
    state.move('completed', FINISHED_KEY, [runFinishedEvent(state.input.runId, result, state.model, state.usage)], {
      result,
      bill: { usage: state.usage, model: state.model, steps: state.steps },
    }),
  );
}

/** Ends the run cancelled; `completed` when its last model step had stored its end first (an operator's cancel in Temporal lost the race). */
async function endCancelled(state: RunState): Promise<'cancelled' | 'completed'> {
  // STOPPING comes before the terminal event: written by the cancel update, or here when an
  // operator cancelled the workflow in Temporal directly.
  if (state.cancelRequested) await condition(() => state.stoppingWritten);
  else {
    const stored = await state.record(STOPPING_KEY, [stoppingEvent(state.input.runId)]);
    if (stored?.refused) {
      await state.endedByStep();
      return 'completed';
    }
  }
  const pending = state.pending;
  state.pending = null;
  const message = 'The run was cancelled';
  await state.move(
    'cancelled',
    'cancelled',
    [{ type: 'RUN_ERROR', run_id: state.input.runId, message, code: runErrorCodes.cancelled, details: {} }],
    {
      error: { code: runErrorCodes.cancelled, message },
      bill: { usage: state.usage, model: state.model, steps: state.steps },
      resolveRequest: pending
        ? {
            requestId: pending.requestId,
            status: 'cancelled',
            approval: pending.details.approval_id ? { status: 'cancelled' } : undefined,
          }
        : undefined,
    },
  );
  return 'cancelled';
}

async function endFailed(state: RunState, code: string, message: string): Promise<void> {
  const details = { workflow_id: workflowInfo().workflowId, status_at_failure: state.status };
  await state.move('failed', 'failed', [{ type: 'RUN_ERROR', run_id: state.input.runId, message, code, details }], {
    error: { code, message },
    bill: { usage: state.usage, model: state.model, steps: state.steps },
  });
}

function describeFailure(err: unknown): { code: string; message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === failureTypes.modelConfig) return { code: runErrorCodes.modelConfig, message: cause.message };
    if (cause.type === failureTypes.model) return { code: runErrorCodes.model, message: cause.message };
    if (cause.type === failureTypes.tool) return { code: runErrorCodes.tool, message: cause.message };
  }
  return { code: runErrorCodes.execution, message: err instanceof Error ? err.message : 'the run failed' };
}
