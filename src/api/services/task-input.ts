import type { Client } from '@temporalio/client';
import type { AgentContext, Caller } from '../../auth/caller.ts';
import { findOpenInputRequest } from '../../db/approvals.ts';
import type { Db } from '../../db/client.ts';
import { findRunState } from '../../db/runs.ts';
import { conflict, notFound } from '../../shared/domain-error.ts';
import type { RequestDetails } from '../../shared/input-requests.ts';
import { isActiveStatus } from '../../shared/run-status.ts';
import { authorizeAnswer } from './approval-rules.ts';
import { answerRequest, type ParsedAnswer } from './input-answers.ts';
import { loadAccessibleTask } from './task-access.ts';

/** Answers the request an active run of the task waits on, as the caller (the role rules in approval-rules.ts). */
export async function answerTaskInput(
  deps: { db: Db; temporal: Client },
  caller: Caller,
  agent: AgentContext,
  taskId: string,
  answer: ParsedAnswer,
) {
  const { db } = deps;
  const task = await loadAccessibleTask(db, taskId, caller, agent);
  const run = await findRunState(db, answer.runId);
  if (!run || run.taskId !== task.id) throw notFound(`Run ${answer.runId} not found in task ${task.id}`);
  if (!isActiveStatus(run.status)) throw conflict(`Run ${answer.runId} is not active (status ${run.status})`);
  await authorizeAnswer(db, caller, answer.requestId, answer.answer);
  const result = await answerRequest(deps, caller, answer);
  return { success: true, message: result.message };
}

/** The oldest open request of the task's active run, as the database has it (right also while workers restart). */
export async function pendingInputOf(db: Db, caller: Caller, agent: AgentContext, taskId: string) {
  const task = await loadAccessibleTask(db, taskId, caller, agent);
  const open = await findOpenInputRequest(db, task.id);
  if (!open) return { pending: false };
  return {
    pending: true,
    request: {
      request_id: open.id,
      run_id: open.runId,
      input_type: open.inputType,
      prompt: open.prompt,
      ...(open.details as RequestDetails),
      ...(open.toolCallId ? { tool_call_id: open.toolCallId } : {}),
      created_at: open.createdAt.toISOString(),
    },
  };
}
