import type { Agent } from '../generated/prisma/client.ts';
import type { Db, DbOrTx } from './client.ts';
import { sqlOfPool } from './sql.ts';

export type { Agent };

export async function findAgent(db: DbOrTx, agentId: string): Promise<Agent | null> {
  return db.agent.findUnique({ where: { id: agentId } });
}

/** The org of an agent. Throws when the agent is gone. */
export async function agentOrgId(db: Db, agentId: string): Promise<string> {
  const [agent] = await sqlOfPool(db).query<{ org_id: string }>('SELECT org_id FROM agents WHERE id = $1', [agentId]);
  if (!agent) throw new Error(`agent ${agentId} not found`);
  return agent.org_id;
}

/** The agent's model settings as stored (unparsed). Throws when the agent is gone. */
export async function agentModelSettings(db: Db, agentId: string): Promise<Agent['modelSettings']> {
  const [agent] = await sqlOfPool(db).query<{ model_settings: Agent['modelSettings'] }>(
    'SELECT model_settings FROM agents WHERE id = $1',
    [agentId],
  );
  if (!agent) throw new Error(`agent ${agentId} not found`);
  return agent.model_settings;
}

/** The agent of that name in the org, with the ids of the users given access. */
export async function findAgentByName(db: DbOrTx, orgId: string, name: string) {
  return db.agent.findUnique({
    where: { orgId_name: { orgId, name } },
    include: { access: { select: { userId: true } } },
  });
}

export interface NewAgent {
  id: string;
  orgId: string;
  name: string;
  customerFacing: boolean;
  modelSettings: object;
  /** Users given access from the start. */
  access: string[];
}

export async function insertAgent(db: DbOrTx, { access, ...agent }: NewAgent): Promise<Agent> {
  return db.agent.create({ data: { ...agent, access: { create: access.map((userId) => ({ userId })) } } });
}

export async function updateAgent(
  db: DbOrTx,
  agentId: string,
  change: { customerFacing?: boolean; modelSettings?: object },
): Promise<void> {
  await db.agent.update({ where: { id: agentId }, data: change });
}

/** The org's agents, oldest first, each with the users given access (in the order they got it). */
export async function listAgentsWithAccess(db: DbOrTx, orgId: string) {
  const agents = await db.agent.findMany({
    where: { orgId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    include: { access: { select: { userId: true }, orderBy: { createdAt: 'asc' } } },
  });
  return agents.map(({ access, ...agent }) => ({ ...agent, access: access.map((a) => a.userId) }));
}

/** The agent as the api uses it, with whether the user was given access to it (a grant; owners and admins need none). */
export interface AgentForUser {
  id: string;
  orgId: string;
  name: string;
  customerFacing: boolean;
  modelSettings: Agent['modelSettings'];
  granted: boolean;
}

/** The agent for `userId` (AgentForUser); null when the agent does not exist. */
export async function findAgentForUser(db: Db, agentId: string, userId: string): Promise<AgentForUser | null> {
  const [agent] = await sqlOfPool(db).query<{
    id: string;
    org_id: string;
    name: string;
    customer_facing: boolean;
    model_settings: Agent['modelSettings'];
    granted: boolean;
  }>(
    `SELECT a.id, a.org_id, a.name, a.customer_facing, a.model_settings,
       EXISTS (SELECT 1 FROM agent_access g WHERE g.agent_id = a.id AND g.user_id = $2) AS granted
     FROM agents a WHERE a.id = $1`,
    [agentId, userId],
  );
  if (!agent) return null;
  return {
    id: agent.id,
    orgId: agent.org_id,
    name: agent.name,
    customerFacing: agent.customer_facing,
    modelSettings: agent.model_settings,
    granted: agent.granted,
  };
}

export async function hasAgentAccess(db: DbOrTx, agentId: string, userId: string): Promise<boolean> {
  return (await db.agentAccess.count({ where: { agentId, userId } })) > 0;
}

/** Ids of the agents the user was given access to. */
export async function agentsGrantedTo(db: Db, userId: string): Promise<string[]> {
  const rows = await db.agentAccess.findMany({ where: { userId }, select: { agentId: true } });
  return rows.map((r) => r.agentId);
}

export async function insertAgentAccess(db: DbOrTx, agentId: string, userId: string): Promise<void> {
  await db.agentAccess.create({ data: { agentId, userId } });
}

/** Removes those users' access to the agent; returns how many had it. */
export async function deleteAgentAccess(db: DbOrTx, agentId: string, userIds: string[]): Promise<number> {
  const { count } = await db.agentAccess.deleteMany({ where: { agentId, userId: { in: userIds } } });
  return count;
}
