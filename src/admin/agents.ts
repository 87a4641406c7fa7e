import type { Db } from '../db/client.ts';
import { type AgentModelSettings, agentModelSettingsSchema } from '../shared/agent-settings.ts';
import { newId } from '../shared/ids.ts';
import type { DbClient } from './db.ts';
import { AdminError, isUniqueViolation, parseOrThrow } from './errors.ts';
import { requireOrg } from './orgs.ts';
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
  for (const userId of access) await requireMember(db, input.orgId, userId);
  const exists = () => new AdminError(`an agent named "${name}" already exists in org ${input.orgId}`);
  if (await db.agent.findUnique({ where: { orgId_name: { orgId: input.orgId, name } }, select: { id: true } })) {
    throw exists();
  }
  try {
    const agent = await db.agent.create({
      data: {
        id: newId('agt'),
        orgId: input.orgId,
        name,
        customerFacing: input.customerFacing ?? false,
        modelSettings: settings,
        access: { create: access.map((userId) => ({ userId })) },
      },
    });
    return toSummary(agent, access);
  } catch (err) {
    if (isUniqueViolation(err)) throw exists();
    throw err;
  }
}

export async function listAgents(db: DbClient, orgId: string): Promise<AgentSummary[]> {
  await requireOrg(db, orgId);
  const agents = await db.agent.findMany({
    where: { orgId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    include: { access: { select: { userId: true }, orderBy: { createdAt: 'asc' } } },
  });
  return agents.map((a) => toSummary(a, a.access.map((x) => x.userId)));
}

/** Gives a user explicit access to an agent of their org. Granting twice is a no-op. */
export async function grantAccess(db: DbClient, agentId: string, userId: string): Promise<{ granted: boolean }> {
  const agent = await requireAgent(db, agentId);
  await requireMember(db, agent.orgId, userId);
  const existing = await db.agentAccess.findUnique({ where: { agentId_userId: { agentId, userId } } });
  if (existing) return { granted: false };
  try {
    await db.agentAccess.create({ data: { agentId, userId } });
  } catch (err) {
    if (isUniqueViolation(err)) return { granted: false };
    throw err;
  }
  return { granted: true };
}

/** Removes a user's explicit access. Owners and admins keep seeing the agent through their role. */
export async function revokeAccess(db: DbClient, agentId: string, userId: string): Promise<{ revoked: boolean }> {
  await requireAgent(db, agentId);
  const { count } = await db.agentAccess.deleteMany({ where: { agentId, userId } });
  return { revoked: count > 0 };
}

export function parseSettings(value: unknown, what = 'settings'): AgentModelSettings {
  return parseOrThrow(agentModelSettingsSchema, value, what);
}

export async function requireAgent(db: DbClient, agentId: string) {
  const agent = await db.agent.findUnique({ where: { id: agentId } });
  if (!agent) throw new AdminError(`agent ${agentId} not found`);
  return agent;
}

/** The user, who must be a member of the org. */
export async function requireMember(db: DbClient, orgId: string, userId: string) {
  const user = await requireUser(db, userId);
  if (user.orgId !== orgId) throw new AdminError(`user ${userId} is not a member of org ${orgId}`);
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
