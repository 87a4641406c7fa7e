import type { Db } from '../../db/client.ts';
import { findTask } from '../../db/tasks.ts';
import { forbidden, notFound } from '../../shared/domain-error.ts';
import { isOrgAdmin } from '../../shared/roles.ts';
import type { AgentContext, Caller } from '../../auth/caller.ts';

/**
 * A task the caller may use through this agent. Unknown → 404. Another org's
 * task, another agent's, or (for members and guests) another user's → 403,
 * as the spec asks for tasks; runs hide their existence behind 404 instead.
 */
export async function loadAccessibleTask(db: Db, taskId: string, caller: Caller, agent: AgentContext) {
  const task = await findTask(db, taskId);
  if (!task) throw notFound(`Task ${taskId} not found`);
  if (task.orgId !== caller.orgId) throw forbidden('This task is not accessible to your organization');
  if (task.agentId !== agent.id) throw forbidden('This task belongs to another agent');
  if (!isOrgAdmin(caller.role) && task.userId !== caller.userId) throw forbidden('This task belongs to another user');
  return task;
}
