import type { ApiDeps } from '../deps.ts';
import { orgRunAllowance, type OrgRunAllowance } from '../../db/orgs.ts';
import { storeRunStart, storeUnstartedRunFailure } from '../../db/run-starts.ts';
import { findRun } from '../../db/runs.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { newId } from '../../shared/ids.ts';
import { agentModelSettingsSchema } from '../../shared/agent-settings.ts';
import { instructionRoles, runRequestProblem, type RunRequest } from '../../shared/run-request.ts';
import { routeRun } from '../../shared/routing.ts';
import { RUN_STARTED_KEY, runStartedEvents } from '../../shared/run-started.ts';
import { runSettingsFrom } from '../../shared/run-settings.ts';
import { runErrorCodes } from '../../shared/events.ts';
import { injectFault } from '../../processes/faults.ts';
import { runsEndedByApi, runsStarted } from '../metrics.ts';
import { conflict, invalid, notFound, paymentRequired, unavailable } from '../../shared/domain-error.ts';
import type { AgentContext, Caller } from '../../auth/caller.ts';
import type { RunClient } from '../../shared/run-client.ts';
import { claimsExpiredBefore, runOfClaim, type IdempotencyClaim } from './idempotency.ts';
import { loadAccessibleTask } from './task-access.ts';
import { interruptRun, startNextQueuedRun } from './run-queue.ts';
import { startRunWorkflow, type RunWorkflowStart } from './workflow-start.ts';
import { clientToolRouting, clientToolsOf, continuedTurn } from './client-tool-turn.ts';

export interface StartedRun {
  runId: string;
  taskId: string;
  mode: 'fast' | 'deep';
  routingReason: string;
  createdAt: Date;
  /** True when an `Idempotency-Key` named a run started earlier: nothing new was started. */
  replayed: boolean;
}

const TITLE_LENGTH = 80;

/**
 * The pre-flight credit check: an org whose balance is 0 or less starts nothing
 * (402, before any row is written). Runs already under way may still take the
 * balance below zero, since a run is priced only when it ends. Returns the org's
 * limit of concurrent runs, read with the balance.
 */
async function requireCredits(
  db: ApiDeps['db'],
  orgId: string,
  agent: AgentContext,
): Promise<OrgRunAllowance['maxConcurrentRuns']> {
  const allowance =
    agent.orgCreditBalance !== undefined && agent.orgMaxConcurrentRuns !== undefined
      ? { creditBalance: agent.orgCreditBalance, maxConcurrentRuns: agent.orgMaxConcurrentRuns }
      : await orgRunAllowance(db, orgId);
  const balance = allowance?.creditBalance ?? 0n;
  if (balance <= 0n) {
    throw paymentRequired(`Your organization is out of credits (balance ${balance}); add credits to start new runs`);
  }
  return allowance?.maxConcurrentRuns ?? null;
}

/**
 * System and developer messages carry the operator's authority over the model: a
 * caller may send them only to an agent whose settings allow it (400 otherwise).
 */
function allowedMessages(modelSettings: unknown, messages: RunRequest['messages']): RunRequest['messages'] {
  if (!messages.some((m) => instructionRoles.includes(m.role))) return messages;
  const settings = agentModelSettingsSchema.safeParse(modelSettings);
  if (!settings.success || settings.data.allow_instruction_messages !== true) {
    throw invalid(
      'system and developer messages are not accepted by this agent; send user and assistant messages only',
    );
  }
  return messages.map((m) => (m.role === 'developer' ? { ...m, role: 'system' as const } : m));
}

/**
 * Creates (or continues) the task, stores the new turn and the pending run in
 * one transaction, then starts the run's workflow (workflow id = run id).
 * A new task stores every message of the request; a continued task stores only
 * the new user message, since the server's history is the conversation of record.
 * With an idempotency claim, a key seen before returns its run and starts nothing;
 * a new key is stored in the same transaction as the run.
 */
/** What a caller other than POST /api/run adds to a start. */
export interface StartExtras {
  /** The flow that started it, shown on the workflow's page. */
  source?: RunWorkflowStart['source'];
  /** The id a new task gets (an AG-UI client's threadId) instead of a generated one. */
  newTaskId?: string;
  /** Stored on a new task with it, before any of its runs can act (a flow's runs act by what started them). */
  taskSource?: object;
  /** The client it is started from (GET /api/runs shows it as the run's source). */
  client?: RunClient;
}

export async function startRun(
  deps: ApiDeps,
  caller: Caller,
  agent: AgentContext,
  body: RunRequest,
  claim?: IdempotencyClaim,
  extras: StartExtras = {},
): Promise<StartedRun> {
  const { db } = deps;
  const earlier = claim && (await runOfClaim(db, caller, claim));
  if (earlier) return replayedRun(db, earlier);
  try {
    return await deps.startGate.run(caller.orgId, () => createAndStartRun(deps, caller, agent, body, claim, extras));
  } catch (err) {
    // A concurrent request with the same key won the race: answer with its run.
    const winner = claim && isUniqueViolation(err) ? await runOfClaim(db, caller, claim) : undefined;
    if (winner) return replayedRun(db, winner);
    throw err;
  }
}

async function replayedRun(db: ApiDeps['db'], runId: string): Promise<StartedRun> {
  const run = await findRun(db, runId);
  if (!run) throw new Error(`run ${runId} of an idempotency key is gone`);
  return {
    runId,
    taskId: run.taskId,
    mode: run.mode,
    routingReason: run.routingReason,
    createdAt: run.createdAt,
    replayed: true,
  };
}

async function createAndStartRun(
  deps: ApiDeps,
  caller: Caller,
  agent: AgentContext,
  body: RunRequest,
  claim: IdempotencyClaim | undefined,
  { source, newTaskId: givenTaskId, taskSource, client }: StartExtras,
): Promise<StartedRun> {
  const { db } = deps;
  const problem = runRequestProblem(body);
  if (problem) throw invalid(problem);
  const { modelSettings } = agent;
  body = { ...body, messages: allowedMessages(modelSettings, body.messages) };
  const concurrencyLimit = await requireCredits(db, caller.orgId, agent);
  const clientTools = clientToolsOf(body);
  const query = body.messages.findLast((m) => m.role === 'user')?.content ?? '';
  const routing = clientToolRouting(routeRun(body.mode, query), clientTools);
  const requestedTaskId = body.task_id ?? body.threadId;
  const runId = newId('run');
  if (requestedTaskId) await loadAccessibleTask(db, requestedTaskId, caller, agent);
  // A new task stores every message of the request; a continued one only the new turn (tool results, user message).
  const newMessages = requestedTaskId
    ? await continuedTurn(db, requestedTaskId, body)
    : body.messages.map((m) => ({ id: newId('msg'), role: m.role, content: m.content }));
  const newTaskId = givenTaskId ?? newId('task');

  const stored = await storeRunStart(db, {
    task: requestedTaskId
      ? { id: requestedTaskId }
      : {
          new: {
            id: newTaskId,
            orgId: caller.orgId,
            agentId: agent.id,
            userId: caller.userId,
            title: query.trim().slice(0, TITLE_LENGTH),
            ...(taskSource ? { source: taskSource } : {}),
          },
        },
    run: {
      id: runId,
      requestedMode: body.mode,
      mode: routing.mode,
      routingReason: routing.reason,
      timezone: body.timezone,
      streamed: body.stream,
      ...(client ? { client } : {}),
    },
    messages: newMessages,
    // The run's first events go with it: a client reads RUN_STARTED without waiting for the worker.
    firstEvents: {
      events: runStartedEvents({
        runId,
        taskId: requestedTaskId ?? newTaskId,
        mode: routing.mode,
        routingReason: routing.reason,
      }),
      key: RUN_STARTED_KEY,
    },
    idempotencyKey: claim && {
      owner: { orgId: caller.orgId, userId: caller.userId },
      ...claim,
      expiredBefore: claimsExpiredBefore(),
    },
    strategy: body.multitask_strategy,
  });
  if (!stored.stored && stored.reason === 'task_gone') throw notFound(`Task ${requestedTaskId} not found`); // deleted since the access check
  if (!stored.stored) {
    const { id, status } = stored.activeRun;
    throw conflict(
      `Task ${requestedTaskId} already has an active run (${id}, ${status}); wait for it to finish or cancel it`,
    );
  }
  const { taskId, createdAt } = stored;
  runsStarted.inc({ mode: routing.mode });
  injectFault('after-run-commit');
  if (stored.queued) {
    // It waits behind the task's other runs; the api that sees the last of them end starts it.
    if (stored.interrupt) await interruptRun(deps, stored.interrupt, caller.userId);
    await startNextQueuedRun(deps, taskId); // in case they ended before it was stored
    return { runId, taskId, mode: routing.mode, routingReason: routing.reason, createdAt, replayed: false };
  }

  try {
    await startRunWorkflow(deps, {
      runId,
      taskId,
      orgId: caller.orgId,
      agentId: agent.id,
      agentName: agent.name,
      userId: caller.userId,
      request: query,
      mode: routing.mode,
      routingReason: routing.reason,
      settings: runSettingsFrom(modelSettings),
      startRecorded: true,
      interactive: body.stream,
      ...(concurrencyLimit !== null ? { concurrencyLimit } : {}),
      ...(source ? { source } : {}),
      via: caller.widgetKeyId ? 'widget' : (client ?? 'api'),
      ...(clientTools ? { clientTools } : {}),
    });
  } catch (err) {
    deps.logger.error({ err, runId }, 'could not start the run workflow');
    const message = 'The run could not be started; try again shortly';
    await failUnstartedRun(db, runId, message);
    throw unavailable(message, 5);
  }
  return { runId, taskId, mode: routing.mode, routingReason: routing.reason, createdAt, replayed: false };
}

/** Ends a run whose workflow never started: one RUN_ERROR, status failed, its idempotency key freed. */
export async function failUnstartedRun(db: ApiDeps['db'], runId: string, message: string): Promise<void> {
  const error = { code: runErrorCodes.internal, message };
  const mode = await storeUnstartedRunFailure(db, runId, error, {
    type: 'RUN_ERROR',
    run_id: runId,
    ...error,
    details: {},
  });
  if (mode) runsEndedByApi.inc({ status: 'failed', mode });
}

/** The spec's background run metadata (the body of a 202). */
export function backgroundRunMetadata(run: StartedRun) {
  return {
    id: run.runId,
    task_id: run.taskId,
    type: 'pending' as const,
    status: 'pending' as const,
    routing_reason: run.routingReason,
    stream_endpoint: null,
    created_at: run.createdAt.toISOString(),
  };
}

/** Response headers naming the run, on the stream and on both 202s; `Idempotent-Replayed` on a replay. */
export function runIdHeaders(run: StartedRun): Record<string, string> {
  return { 'X-Run-Id': run.runId, 'X-Task-Id': run.taskId, ...(run.replayed ? { 'Idempotent-Replayed': 'true' } : {}) };
}

export const RUN_ID_HEADER_DOCS: Record<string, string> = {
  'X-Run-Id': "The run id (equal to the body's run id); keep it to resume or look the run up if the answer is cut off",
  'X-Task-Id': "The task id (equal to the body's `task_id`)",
  'Idempotent-Replayed': '`true` when an `Idempotency-Key` named a run started earlier and nothing new was started',
};
