import { WorkflowNotFoundError } from '@temporalio/client';
import type { Db } from '../../db/client.ts';
import { countMessages, listMessages } from '../../db/conversation.ts';
import { latestRunOfTask, listRunsOfTask, type Run } from '../../db/runs.ts';
import { deleteTaskLocked, listTasksWithLatestRun, type Task } from '../../db/tasks.ts';
import type { MessageParts } from '../../shared/message-parts.ts';
import { isActiveStatus, taskRunStatus } from '../../shared/run-status.ts';
import type { ApiDeps } from '../deps.ts';
import { unavailable } from '../../shared/domain-error.ts';
import { isOrgAdmin } from '../../shared/roles.ts';
import type { AgentContext, Caller } from '../../auth/caller.ts';
import { runsEndedByApi } from '../metrics.ts';

const iso = (d: Date) => d.toISOString();

export function toRunSummary(run: Run) {
  return {
    id: run.id,
    status: run.status,
    mode: run.mode,
    routing_reason: run.routingReason,
    created_at: iso(run.createdAt),
    finished_at: run.finishedAt ? iso(run.finishedAt) : null,
    input_tokens: run.inputTokens,
    output_tokens: run.outputTokens,
    credits_used: run.creditsUsed,
  };
}

export function toRunProgress(run: Run) {
  return {
    ...toRunSummary(run),
    updated_at: iso(run.updatedAt),
    event_count: run.lastEventSeq,
    error: runError(run.error),
  };
}

/** The stored error is `{code, message}` written by the workflow; anything else is reported generically. */
function runError(error: unknown): { code: string; message: string } | null {
  if (error === null || error === undefined) return null;
  const e = error as { code?: unknown; message?: unknown };
  return {
    code: typeof e.code === 'string' ? e.code : 'EXECUTION_ERROR',
    message: typeof e.message === 'string' ? e.message : 'the run failed',
  };
}

function toTaskSummary(task: Task, latest: Pick<Run, 'id' | 'status'> | undefined) {
  return {
    id: task.id,
    title: task.title,
    agent_id: task.agentId,
    user_id: task.userId,
    run_status: taskRunStatus(latest?.status),
    latest_run_id: latest?.id ?? null,
    latest_run_status: latest?.status ?? null,
    source: (task.source ?? null) as { flow_id: string; flow_name: string; kind: string; external_id: string } | null,
    created_at: iso(task.createdAt),
    updated_at: iso(task.updatedAt),
  };
}

/**
 * The agent's tasks the caller may see, newest first: owners and admins see
 * every task of the agent, members and guests only the tasks they started.
 * (`requireAgent` has already checked the agent belongs to the caller's org.)
 */
export async function listTasks(db: Db, caller: Caller, agent: AgentContext, limit: number) {
  const scope = { orgId: caller.orgId, agentId: agent.id, userId: isOrgAdmin(caller.role) ? undefined : caller.userId };
  const tasks = await listTasksWithLatestRun(db, scope, limit);
  const items = tasks.map(({ task, latestRun }) => toTaskSummary(task, latestRun));
  return { tasks: items, count: items.length };
}

export async function taskDetail(db: Db, task: Task) {
  const [runs, messageCount] = await Promise.all([listRunsOfTask(db, task.id), countMessages(db, task.id)]);
  return {
    ...toTaskSummary(task, runs[0]),
    org_id: task.orgId,
    message_count: messageCount,
    runs: runs.map(toRunSummary),
  };
}

export async function taskRunProgress(db: Db, task: Task) {
  const latest = await latestRunOfTask(db, task.id);
  return {
    task_id: task.id,
    run_status: taskRunStatus(latest?.status),
    active: latest ? isActiveStatus(latest.status) : false,
    run: latest ? toRunProgress(latest) : null,
  };
}

export async function taskMessages(db: Db, task: Task) {
  const rows = await listMessages(db, task.id);
  const messages = rows.map((m) => ({
    id: m.id,
    role: m.role as 'user' | 'assistant' | 'system' | 'tool',
    content: m.content,
    parts: (m.parts ?? null) as MessageParts | null,
    run_id: m.runId,
    position: m.position,
    created_at: iso(m.createdAt),
  }));
  return { task_id: task.id, messages, count: messages.length };
}

/**
 * Stops the task's active runs, then deletes the task; the foreign keys cascade
 * to runs, messages, events and comments. The task row stays locked throughout,
 * so POST /api/run (which locks it too) cannot start a run on it meanwhile.
 * Workflows are terminated, not cancelled: a cancelled workflow would still
 * write its final status and events, into rows that are about to disappear.
 */
export async function deleteTask(deps: ApiDeps, task: Task): Promise<{ runs: number; messages: number }> {
  const { runs, messages, ended } = await deleteTaskLocked(deps.db, task.id, (run) => terminateRun(deps, run.id));
  // Runs that ended by their task's deletion (no terminal event: their rows are gone), counted once committed.
  for (const run of ended) runsEndedByApi.inc({ status: 'deleted', mode: run.mode });
  return { runs, messages };
}

async function terminateRun({ temporal, logger }: ApiDeps, runId: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(runId).terminate('task deleted');
  } catch (err) {
    // Already finished, or never started (its start failed): nothing left to stop.
    if (err instanceof WorkflowNotFoundError) return;
    logger.error({ err, runId }, 'could not terminate the run workflow of a deleted task');
    throw unavailable('The active run could not be stopped, so the task was not deleted; try again shortly', 5);
  }
}
