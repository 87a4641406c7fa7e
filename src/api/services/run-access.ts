import type { Db } from '../../db/client.ts';
import { findRunWithOwner } from '../../db/runs.ts';
import { notFound } from '../../shared/domain-error.ts';
import { isOrgAdmin } from '../../shared/roles.ts';
import type { AgentContext, Caller } from '../../auth/caller.ts';

/**
 * A run the caller may see: its task is in the caller's org and belongs to the
 * `X-Agent-Id` agent, and (for members and guests) is the caller's own task.
 * Anything else is 404 with the same detail as an unknown run, so a run's
 * existence is never revealed to someone who may not see it.
 */
export async function loadVisibleRun(db: Db, runId: string, caller: Caller, agent: AgentContext) {
  const run = await findRunWithOwner(db, runId);
  const visible =
    run !== null &&
    run.task.orgId === caller.orgId &&
    run.task.agentId === agent.id &&
    (isOrgAdmin(caller.role) || run.task.userId === caller.userId);
  if (!visible) throw notFound(`Run ${runId} not found`);
  return run;
}
