import { findAgentForUser, hasAgentAccess, listAgentsWithAccess, type AgentForUser } from '../../db/agents.ts';
import type { Db } from '../../db/client.ts';
import { isOrgAdmin, mayUseAgentAs } from '../../shared/roles.ts';
import { forbidden, notFound } from '../../shared/domain-error.ts';
import type { Caller } from '../../auth/caller.ts';

/** Owners and admins may use every agent of their org; members and guests need a grant (`granted`). */
export function mayUseAgent(caller: Caller, granted: boolean): boolean {
  return mayUseAgentAs(caller.role, granted);
}

/** The same rule for an agent the caller's org owns, reading the grant only when the role does not settle it. */
export async function mayUseAgentOf(db: Db, caller: Caller, agentId: string): Promise<boolean> {
  return isOrgAdmin(caller.role) || (await hasAgentAccess(db, agentId, caller.userId));
}

/**
 * The one agent-access check: unknown agent → 404; an agent of another org, or
 * one the caller was not granted → 403. Used for `X-Agent-Id` and for agents named in a path.
 */
export async function loadUsableAgent(db: Db, agentId: string, caller: Caller) {
  return usableAgent(await findAgentForUser(db, agentId, caller.userId), agentId, caller);
}

/** loadUsableAgent's check, on the agent as read already (null: it does not exist). */
export function usableAgent(agent: AgentForUser | null, agentId: string, caller: Caller) {
  if (!agent) throw notFound(`Agent ${agentId} not found`);
  if (agent.orgId !== caller.orgId) throw forbidden('This agent is not accessible to your organization');
  if (!mayUseAgent(caller, agent.granted)) throw forbidden('You have not been granted access to this agent');
  return {
    id: agent.id,
    orgId: agent.orgId,
    name: agent.name,
    customerFacing: agent.customerFacing,
    modelSettings: agent.modelSettings,
  };
}

/** The agents of the caller's org the caller may use (guests: customer-facing ones), oldest first. */
export async function usableAgentsOf(db: Db, caller: Caller) {
  const agents = await listAgentsWithAccess(db, caller.orgId);
  return agents
    .filter((a) => mayUseAgent(caller, a.access.includes(caller.userId)))
    .filter((a) => caller.role !== 'guest' || a.customerFacing)
    .map((a) => ({ id: a.id, name: a.name, description: descriptionOf(a) }));
}

/** The agent's description from its settings, or a generic one. */
function descriptionOf(agent: { name: string; modelSettings: unknown }): string {
  const description = (agent.modelSettings as { description?: unknown } | null)?.description;
  return typeof description === 'string' && description
    ? description
    : `Ask the agent "${agent.name}" and get its answer`;
}
