import { findRunWithOwner } from '../../db/runs.ts';
import { findTask } from '../../db/tasks.ts';
import type { Caller } from '../../auth/caller.ts';
import { isDomainError, notFound } from '../../shared/domain-error.ts';
import { decodeCursor } from '../cursors.ts';
import type { ApiDeps } from '../deps.ts';
import { usableAgentFor } from './agent-calls.ts';
import { loadVisibleRun } from './run-access.ts';
import { runEventPage } from './run-events.ts';
import { loadAccessibleTask } from './task-access.ts';
import { pendingInputOf } from './task-input.ts';
import { taskMessages, toRunProgress } from './tasks.ts';

/*
 * The read use cases of GET /api/run/{task_id}/status, /api/runs/{run_id}/events and
 * /api/tasks/{task_id}/messages, for callers that name no agent (MCP clients): the agent is the
 * run's or task's own, and must be one the caller may use; then the same visibility rules apply.
 * Anything the caller may not see is "not found", as for runs, so existence is never revealed.
 */

async function hidden<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (isDomainError(err, 'forbidden') || isDomainError(err, 'not_found')) throw notFound(`${what} not found`);
    throw err;
  }
}

/** A run's status and progress, with the question it waits on, if any. */
export function runStatusFor(deps: ApiDeps, caller: Caller, runId: string) {
  return hidden(`Run ${runId}`, async () => {
    const owner = await findRunWithOwner(deps.db, runId);
    if (!owner) throw notFound(`Run ${runId} not found`);
    const agent = await usableAgentFor(deps, caller, owner.task.agentId);
    const run = await loadVisibleRun(deps.db, runId, caller, agent);
    const input = run.status === 'awaiting_approval' ? await pendingInputOf(deps.db, caller, agent, run.taskId) : null;
    return {
      ...toRunProgress(run),
      task_id: run.taskId,
      agent_id: agent.id,
      input_request: input?.request?.run_id === run.id ? input.request : null,
    };
  });
}

/** Up to `limit` of a run's stored events after seq `after`, and the seq to ask after next (null at the end of a finished run). */
export function runEventsFor(deps: ApiDeps, caller: Caller, runId: string, after: number, limit: number) {
  return hidden(`Run ${runId}`, async () => {
    const owner = await findRunWithOwner(deps.db, runId);
    if (!owner) throw notFound(`Run ${runId} not found`);
    const agent = await usableAgentFor(deps, caller, owner.task.agentId);
    const run = await loadVisibleRun(deps.db, runId, caller, agent);
    const { next_cursor, ...page } = await runEventPage(deps.db, run, after, limit);
    return { ...page, next_after: next_cursor === null ? null : (decodeCursor(next_cursor)?.seq ?? null) };
  });
}

/** A task's conversation, oldest first. */
export function taskMessagesFor(deps: ApiDeps, caller: Caller, taskId: string) {
  return hidden(`Task ${taskId}`, async () => {
    const found = await findTask(deps.db, taskId);
    if (!found) throw notFound(`Task ${taskId} not found`);
    const agent = await usableAgentFor(deps, caller, found.agentId);
    return taskMessages(deps.db, await loadAccessibleTask(deps.db, taskId, caller, agent));
  });
}
