import {
  deleteAgentAccess,
  findAgent,
  findAgentByName,
  hasAgentAccess,
  insertAgent,
  insertAgentAccess,
  listAgentsWithAccess,
} from '../db/agents.ts';
import type { Db, DbOrTx } from '../db/client.ts';
import { listUsersOfOrg } from '../db/users.ts';
import { type AgentModelSettings, agentModelSettingsSchema } from '../shared/agent-settings.ts';
import { newId } from '../shared/ids.ts';
import { isOrgAdmin, mayUseAgentAs } from '../shared/roles.ts';
import { AdminError, isUniqueViolation, parseOrThrow } from './errors.ts';
import { requireOrg } from './orgs.ts';
import { checkToolServerSecrets } from './tool-server-secrets.ts';
import { requireUser } from './users.ts';

export interface AgentSummary {
  id: string;
  org_id: string;
  name: string;
  customer_facing: boolean;
  settings: AgentModelSettings;
  /** Users given explicit access (owners and admins see every agent regardless). */
  access: string[];
  created_at: string;
}

export interface CreateAgentInput {
  orgId: string;
  name: string;
  customerFacing?: boolean;
  /** Model settings, validated with agentModelSettingsSchema. */
  settings?: unknown;
  /** User ids of the org to grant access to. */
  access?: string[];
}

export async function createAgent(db: Db, input: CreateAgentInput): Promise<AgentSummary> {
  const name = input.name.trim();
  if (!name) throw new AdminError('agent name must not be empty');
  const settings = parseSettings(input.settings ?? {});
  const access = [...new Set(input.access ?? [])];
  await requireOrg(db, input.orgId);
  await checkToolServerSecrets(db, input.orgId, settings, 'agent');
  for (const userId of access) await requireMember(db, input.orgId, userId);
  const exists = () => new AdminError(`an agent named "${name}" already exists in org ${input.orgId}`);
  if (await findAgentByName(db, input.orgId, name)) throw exists();
  try {
    const agent = await insertAgent(db, {
      id: newId('agt'),
      orgId: input.orgId,
      name,
      customerFacing: input.customerFacing ?? false,
      modelSettings: settings,
      access,
    });
    return toSummary(agent, access);
  } catch (err) {
    if (isUniqueViolation(err)) throw exists();
    throw err;
  }
}

export async function listAgents(db: DbOrTx, orgId: string): Promise<AgentSummary[]> {
  await requireOrg(db, orgId);
  const agents = await listAgentsWithAccess(db, orgId);
  return agents.map((a) => toSummary(a, a.access));
}

/** An agent as GET /api/agents shows it; `settings` and `access` (emails) only to owners and admins. */
export interface UsableAgent {
  id: string;
  name: string;
  customer_facing: boolean;
  settings?: AgentModelSettings;
  access?: string[];
}

/** The agents of the caller's org that the caller may use (the rule of mayUseAgentAs), oldest first. */
export async function listUsableAgents(
  db: DbOrTx,
  caller: { orgId: string; userId: string; role: string },
): Promise<UsableAgent[]> {
  const agents = await listAgentsWithAccess(db, caller.orgId);
  const usable = agents.filter((a) => mayUseAgentAs(caller.role, a.access.includes(caller.userId)));
  if (!isOrgAdmin(caller.role))
    return usable.map((a) => ({ id: a.id, name: a.name, customer_facing: a.customerFacing }));
  const emails = new Map((await listUsersOfOrg(db, caller.orgId)).map((u) => [u.id, u.email]));
  return usable.map((a) => ({
    id: a.id,
    name: a.name,
    customer_facing: a.customerFacing,
    settings: a.modelSettings as AgentModelSettings,
    access: a.access.map((id) => emails.get(id) ?? id),
  }));
}

/** Gives a user explicit access to an agent of their org. Granting twice is a no-op. */
export async function grantAccess(db: DbOrTx, agentId: string, userId: string): Promise<{ granted: boolean }> {
  const agent = await requireAgent(db, agentId);
  await requireMember(db, agent.orgId, userId);
  if (await hasAgentAccess(db, agentId, userId)) return { granted: false };
  try {
    await insertAgentAccess(db, agentId, userId);
  } catch (err) {
    if (isUniqueViolation(err)) return { granted: false };
    throw err;
  }
  return { granted: true };
}

/** Removes a user's explicit access. Owners and admins keep seeing the agent through their role. */
export async function revokeAccess(db: DbOrTx, agentId: string, userId: string): Promise<{ revoked: boolean }> {
  await requireAgent(db, agentId);
  return { revoked: (await deleteAgentAccess(db, agentId, [userId])) > 0 };
}

export function parseSettings(value: unknown, what = 'settings'): AgentModelSettings {
  return parseOrThrow(agentModelSettingsSchema, value, what);
}

export async function requireAgent(db: DbOrTx, agentId: string) {
  const agent = await findAgent(db, agentId);
  if (!agent) throw new AdminError(`agent ${agentId} not found`);
  return agent;
}

/** The user, who must be a member of the org (a widget visitor is none: it is given no access, grants or keys). */
export async function requireMember(db: DbOrTx, orgId: string, userId: string) {
  const user = await requireUser(db, userId);
  if (user.orgId !== orgId || user.visitor) throw new AdminError(`user ${userId} is not a member of org ${orgId}`);
  return user;
}

function toSummary(
  a: { id: string; orgId: string; name: string; customerFacing: boolean; modelSettings: unknown; createdAt: Date },
  access: string[],
): AgentSummary {
  return {
    id: a.id,
    org_id: a.orgId,
    name: a.name,
    customer_facing: a.customerFacing,
    settings: a.modelSettings as AgentModelSettings,
    access,
    created_at: a.createdAt.toISOString(),
  };
}
