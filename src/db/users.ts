import { activeStatuses } from '../shared/run-status.ts';
import type { User } from '../generated/prisma/client.ts';
import { Role } from '../generated/prisma/enums.ts';
import type { Db, DbOrTx } from './client.ts';
import type { Agent } from '../generated/prisma/client.ts';
import type { AgentForUser } from './agents.ts';
import { sqlOfPool } from './sql.ts';

export { Role };
export type { User };

export async function findUser(db: DbOrTx, userId: string): Promise<User | null> {
  return db.user.findUnique({ where: { id: userId } });
}

/** A member of the org by email (widget visitors are not members). */
export async function findUserByEmail(db: DbOrTx, orgId: string, email: string): Promise<User | null> {
  return db.user.findFirst({ where: { orgId, email, visitor: false } });
}

export async function insertUser(
  db: DbOrTx,
  user: { id: string; orgId: string; email: string; name: string; role: Role },
): Promise<User> {
  return db.user.create({ data: user });
}

/** The org's members, oldest first (widget visitors are not members). */
export async function listUsersOfOrg(db: DbOrTx, orgId: string): Promise<User[]> {
  return db.user.findMany({ where: { orgId, visitor: false }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** A new widget visitor of `keyId`: a guest of the org that is no member and expires at `expiresAt`. */
export async function insertVisitor(
  db: DbOrTx,
  visitor: { id: string; orgId: string; keyId: string; expiresAt: Date },
): Promise<void> {
  const { id, orgId, keyId, expiresAt } = visitor;
  await db.user.create({
    data: {
      id,
      orgId,
      email: `visitor-${id.slice(4)}@widget.invalid`,
      name: 'Widget visitor',
      role: 'guest',
      visitor: true,
      visitorKeyId: keyId,
      expiresAt,
    },
  });
}

/** Moves the expiry of the unexpired visitor `id` of `keyId` to `expiresAt`; false when there is none such. */
export async function renewVisitor(
  db: DbOrTx,
  visitor: { id: string; orgId: string; keyId: string; expiresAt: Date },
): Promise<boolean> {
  const { id, orgId, keyId, expiresAt } = visitor;
  const renewed = await db.user.updateMany({
    where: {
      id,
      orgId,
      visitor: true,
      OR: [{ visitorKeyId: keyId }, { visitorKeyId: null }],
      expiresAt: { gt: new Date() },
    },
    data: { expiresAt, visitorKeyId: keyId },
  });
  return renewed.count === 1;
}

/** Deletes up to `limit` of the org's expired visitors, their tasks with them (not one with a run still going); answers how many. */
export async function deleteExpiredVisitors(db: DbOrTx, orgId: string, limit: number): Promise<number> {
  const expired = await db.user.findMany({
    where: {
      orgId,
      visitor: true,
      expiresAt: { lte: new Date() },
      tasks: { none: { runs: { some: { status: { in: [...activeStatuses] } } } } },
    },
    select: { id: true },
    take: limit,
  });
  if (expired.length === 0) return 0;
  return (await db.user.deleteMany({ where: { id: { in: expired.map((u) => u.id) } } })).count;
}

export async function updateUser(db: DbOrTx, userId: string, change: { role?: Role; name?: string }): Promise<void> {
  await db.user.update({ where: { id: userId }, data: change });
}

export async function emailsOfUsers(db: DbOrTx, userIds: string[]): Promise<string[]> {
  const rows = await db.user.findMany({ where: { id: { in: userIds } }, select: { email: true } });
  return rows.map((r) => r.email);
}

export interface UserStanding {
  orgId: string;
  role: Role;
  /** The token's API key is revoked or gone. */
  keyRevoked: boolean;
}

/** A user's standing with the agent a request names, read in the same statement. */
export interface UserStandingWithAgent extends UserStanding {
  /** The agent (null when it does not exist), with whether the user was granted it. */
  agent: AgentForUser | null;
  /** The org's credit balance, for a run start's pre-flight check. */
  creditBalance: bigint;
  /** The org's limit of concurrent runs (null: none), handed to the run's workflow. */
  maxConcurrentRuns: number | null;
}

const STANDING_COLUMNS = `u.org_id, u.role::text AS role, ($2::text IS NOT NULL AND (k.id IS NULL OR k.revoked_at IS NOT NULL)) AS key_revoked`;
const STANDING_FROM = `users u LEFT JOIN api_keys k ON k.id = $2 AND k.user_id = u.id`;

interface StandingRow {
  org_id: string;
  role: Role;
  key_revoked: boolean;
}

/**
 * A user's org and role now, and, when `apiKeyId` is given, whether that key of theirs
 * is revoked (`keyRevoked` true also when the key is gone). Null when the user is gone.
 * Every authenticated request asks this: one statement on the pg pool (src/db/sql.ts).
 */
export async function findUserStanding(db: Db, userId: string, apiKeyId?: string): Promise<UserStanding | null> {
  const [user] = await sqlOfPool(db).query<StandingRow>(
    `SELECT ${STANDING_COLUMNS} FROM ${STANDING_FROM} WHERE u.id = $1`,
    [userId, apiKeyId ?? null],
  );
  return user ? { orgId: user.org_id, role: user.role, keyRevoked: user.key_revoked } : null;
}

/**
 * findUserStanding, findAgentForUser and the org's credit balance in one statement: what a
 * request naming an agent (`X-Agent-Id`) reads before its handler, one round trip instead of
 * three for a run start.
 */
export async function findUserStandingWithAgent(
  db: Db,
  userId: string,
  apiKeyId: string | undefined,
  agentId: string,
): Promise<UserStandingWithAgent | null> {
  const [row] = await sqlOfPool(db).query<
    StandingRow & {
      credit_balance: string;
      max_concurrent_runs: number | null;
      // The agent's columns: null when it does not exist (granted is then false).
      agent_id: string | null;
      agent_org_id: string;
      agent_name: string;
      agent_customer_facing: boolean;
      agent_model_settings: Agent['modelSettings'];
      agent_granted: boolean;
    }
  >(
    `SELECT ${STANDING_COLUMNS}, o.credit_balance::text AS credit_balance, o.max_concurrent_runs,
       a.id AS agent_id, a.org_id AS agent_org_id, a.name AS agent_name, a.customer_facing AS agent_customer_facing,
       a.model_settings AS agent_model_settings,
       EXISTS (SELECT 1 FROM agent_access g WHERE g.agent_id = a.id AND g.user_id = u.id) AS agent_granted
     FROM ${STANDING_FROM} JOIN orgs o ON o.id = u.org_id LEFT JOIN agents a ON a.id = $3
     WHERE u.id = $1`,
    [userId, apiKeyId ?? null, agentId],
  );
  if (!row) return null;
  const agent: AgentForUser | null =
    row.agent_id === null
      ? null
      : {
          id: row.agent_id,
          orgId: row.agent_org_id,
          name: row.agent_name,
          customerFacing: row.agent_customer_facing,
          modelSettings: row.agent_model_settings,
          granted: row.agent_granted,
        };
  return {
    orgId: row.org_id,
    role: row.role,
    keyRevoked: row.key_revoked,
    agent,
    creditBalance: BigInt(row.credit_balance),
    maxConcurrentRuns: row.max_concurrent_runs,
  };
}
