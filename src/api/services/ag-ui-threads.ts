/**
 * AG-UI threads and our tasks. The client picks `threadId`, so it cannot be a task id as it is:
 * task ids are one space across orgs, and a thread another org had opened would have answered 403
 * (telling that it exists), and an org could take a thread id before its owner first used it.
 * A thread belongs to the caller's org instead: its task id is derived from (org, threadId), so
 * the same threadId in two orgs names two tasks, and no answer depends on the other org's.
 */
import { createHash } from 'node:crypto';
import type { AgentContext, Caller } from '../../auth/caller.ts';
import type { Db } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { orgTaskIds } from '../../db/tasks.ts';
import { conflict } from '../../shared/domain-error.ts';
import type { RunRequest } from '../../shared/run-request.ts';
import type { ApiDeps } from '../deps.ts';
import { startRun, type StartedRun } from './start-run.ts';

/** The task id of `threadId` in `orgId`: `task_` and 128 bits of SHA-256 over both (the shape of newId's). */
export function threadTaskId(orgId: string, threadId: string): string {
  return `task_${createHash('sha256').update(orgId).update('\0').update(threadId).digest('hex').slice(0, 32)}`;
}

export interface ThreadTask {
  taskId: string;
  /** False: no task yet; the run starts one with `taskId`. */
  exists: boolean;
}

/**
 * The task `threadId` names in the caller's org: the thread's own task; else a task of the org whose
 * id is the threadId itself (a task started through POST /api/run that an AG-UI client continues,
 * or a thread opened before threads were per org); else a new task of the thread's id.
 */
export async function threadTask(db: Db, orgId: string, threadId: string): Promise<ThreadTask> {
  const taskId = threadTaskId(orgId, threadId);
  const found = await orgTaskIds(db, orgId, [taskId, threadId]);
  if (found.includes(taskId)) return { taskId, exists: true };
  if (found.includes(threadId)) return { taskId: threadId, exists: true };
  return { taskId, exists: false };
}

/** Starts a run on the thread's task: its first run starts the task under the thread's task id. */
export async function startThreadRun(
  deps: ApiDeps,
  caller: Caller,
  agent: AgentContext,
  body: RunRequest,
  thread: ThreadTask,
): Promise<StartedRun> {
  return startRun(deps, caller, agent, body, undefined, {
    client: 'ag-ui',
    ...(thread.exists ? {} : { newTaskId: thread.taskId }),
  }).catch((err: unknown) => {
    // Two first runs of one thread at once: the other created its task, and its run is busy.
    if (!thread.exists && isUniqueViolation(err)) throw conflict('The thread’s run is still busy');
    throw err;
  });
}
