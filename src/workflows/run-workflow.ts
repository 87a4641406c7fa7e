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
import { CLIENT_TOOL_CALLS_OUTCOME } from '../shared/client-tools.ts';
import { runErrorCodes } from '../shared/run-error-codes.ts';
import { FINISHED_KEY, runFinishedEvent, stoppingEvent, STOPPING_KEY } from '../shared/run-end.ts';
import { RUN_STARTED_KEY, runStartedEvents } from '../shared/run-started.ts';
import {
  defaultRunSettings,
  failureTypes,
  type RunOutcome,
  type RunWorkflowInput,
} from '../shared/run-workflow-types.ts';
import { runAgentLoop } from './agent-loop.ts';
import { snapshotOnHost } from './sandbox-routing.ts';
import { connectToolServers } from './tool-servers.ts';
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
import { bookkeeping } from './activities.ts';
import {
  cancelling,
  cancelWithdrawn,
  isCancelling,
  isStoppingWrite,
  refusePause,
  refuseResume,
  refuseUnlessActive,
  stoppingWritten,
} from './run-lifecycle.ts';
import { RunState } from './run-state.ts';
import { passSlotOn, takeSlot } from './run-slots.ts';

/** One run of an agent: the run status machine, driven by activities and by people. */
export async function agentRun(input: RunWorkflowInput): Promise<RunOutcome> {
  // The run's own settings replace these before its first step (its input, or the agent's now).
  const state = new RunState(input, defaultRunSettings);
  const work = new CancellationScope();
  registerHandlers(state, work);

  try {
    return await runToEnd(state, work);
  } finally {
    // After the outcome is stored: the run's slot is free, and the org's next waiting run may take it.
    if (input.concurrencyLimit !== undefined) await CancellationScope.nonCancellable(() => passSlotOn(state));
    // Keep the agent's workspace on its host, so another host can restore it.
    if (state.sandboxChanged) await snapshotOnHost(state);
    // An update still writing (a cancel's STOPPING) answers its caller before the run closes.
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  }
}

async function runToEnd(state: RunState, work: CancellationScope): Promise<RunOutcome> {
  const { input } = state;
  try {
    await work.run(async () => {
      state.settings = input.settings ?? (await bookkeeping.loadRunSettings({ agentId: input.agentId }));
      if (!input.startRecorded) await state.record(RUN_STARTED_KEY, runStartedEvents(input));
      if (input.concurrencyLimit !== undefined) await takeSlot(state);
      await connectToolServers(state);
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
        // The move is stored by the first model step, before it streams.
        state.deferMove('executing', 'executing');
        const result = await runAgentLoop(state, 'main', { answerWithEnd: true, offerClientTools: true });
        if (result.ended) await state.endedByStep();
        else
          await finish(state, {
            outcome: result.clientToolCalls ? CLIENT_TOOL_CALLS_OUTCOME : 'completed',
            text: result.text,
            message_id: result.messageId,
            steps: result.steps,
            ...(result.clientToolCalls
              ? {
                  client_tool_calls: result.clientToolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.args })),
                }
              : {}),
          });
      }
    });
    return { status: 'completed', usage: state.usage };
  } catch (err) {
    if (isCancellation(err) || isCancelling(state.life)) {
      const ended = await CancellationScope.nonCancellable(() => endCancelled(state));
      return { status: ended, usage: state.usage };
    }
    const { code, message } = describeFailure(err);
    await CancellationScope.nonCancellable(() => endFailed(state, code, message));
    return { status: 'failed', usage: state.usage };
  }
}

function registerHandlers(state: RunState, work: CancellationScope): void {
  setHandler(runStatusQuery, () => state.status);
  setHandler(pendingRequestQuery, () => state.pending);
  setHandler(commentSignal, (comment) => void state.comments.push(comment));
  setHandler(answerUpdate, (answer) => state.acceptAnswer(answer), {
    validator: (answer) => state.validateAnswer(answer),
  });

  const { runId } = state.input;
  setHandler(
    cancelUpdate,
    async (_request) => {
      if (!isCancelling(state.life)) {
        state.life = cancelling(state.life);
        try {
          const stored = await state.recordFromHandler(STOPPING_KEY, [stoppingEvent(runId)]);
          // The run's last model step stored the run's end first (RunState.endedByStep): there is nothing left to cancel.
          if (stored.refused) state.life = cancelWithdrawn(state.life);
          else {
            state.life = stoppingWritten(state.life);
            work.cancel();
          }
        } catch (err) {
          state.life = cancelWithdrawn(state.life);
          throw err;
        }
      } else await condition(() => !isStoppingWrite(state.life)); // a cancel before this one is still writing its STOPPING
      if (!isCancelling(state.life))
        throw ApplicationFailure.nonRetryable(`Run ${runId} is not active`, refusals.notActive);
      return { message: 'Cancelling: the run stops now and ends cancelled' };
    },
    { validator: (_request) => refuseUnlessActive(state.life, state.status, runId) },
  );
  setHandler(
    pauseUpdate,
    (_request) => {
      state.life = { phase: 'pausing' };
      return Promise.resolve({
        message: 'Pause requested: the run pauses at its next safe point (it may finish first)',
      });
    },
    { validator: (_request) => refusePause(state.life, state.status, runId, state.pending !== null) },
  );
  setHandler(
    resumeUpdate,
    (_request) => {
      state.life = { phase: 'running' };
      return Promise.resolve({ message: 'Resumed' });
    },
    { validator: (_request) => refuseResume(state.life, state.status, runId) },
  );
}

/**
 * The terminal write: USAGE, then RUN_FINISHED, with the bill, in one transaction. A cancel
 * accepted before this point wins, even if the agent's work ended while STOPPING was being
 * written: the caller was told the run ends cancelled, so it does.
 */
async function finish(state: RunState, result: Record<string, unknown>): Promise<void> {
  if (isCancelling(state.life)) throw new CancelledFailure('cancelled before the outcome was stored');
  state.life = { phase: 'finishing' }; // from here cancel and pause are refused: the outcome is decided
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
  if (isCancelling(state.life)) await condition(() => !isStoppingWrite(state.life));
  if (!isCancelling(state.life)) {
    const stored = await state.record(STOPPING_KEY, [stoppingEvent(state.input.runId)]);
    if (stored.refused) {
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
