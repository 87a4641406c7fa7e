import type { Org } from '../generated/prisma/client.ts';
import type { Db, DbOrTx } from './client.ts';
import { sqlOfPool } from './sql.ts';

export type { Org };

export async function findOrg(db: DbOrTx, orgId: string): Promise<Org | null> {
  return db.org.findUnique({ where: { id: orgId } });
}

/** What a run start checks of its org: its credit balance and its limit of concurrent runs (null: none). */
export interface OrgRunAllowance {
  creditBalance: bigint;
  maxConcurrentRuns: number | null;
}

/** The org's run allowance (undefined when the org is gone); asked by run starts that did not read it with the caller, so on the pg pool. */
export async function orgRunAllowance(db: Db, orgId: string): Promise<OrgRunAllowance | undefined> {
  const [org] = await sqlOfPool(db).query<{ credit_balance: string; max_concurrent_runs: number | null }>(
    'SELECT credit_balance, max_concurrent_runs FROM orgs WHERE id = $1',
    [orgId],
  );
  return org ? { creditBalance: BigInt(org.credit_balance), maxConcurrentRuns: org.max_concurrent_runs } : undefined;
}

/** Sets the org's limit of concurrent runs (null: unlimited); waiting runs see it at their next try. */
export async function setOrgMaxConcurrentRuns(db: DbOrTx, orgId: string, max: number | null): Promise<Org> {
  return db.org.update({ where: { id: orgId }, data: { maxConcurrentRuns: max } });
}

/** Every org of that name: names are unique by convention only (the admin lock guards it). */
export async function findOrgsNamed(db: DbOrTx, name: string): Promise<Org[]> {
  return db.org.findMany({ where: { name } });
}

export async function insertOrg(db: DbOrTx, org: { id: string; name: string; creditBalance: bigint }): Promise<Org> {
  return db.org.create({ data: org });
}

/** Every org, oldest first, with how many members (seats: widget visitors are none) and agents it has. */
export async function listOrgsWithCounts(db: DbOrTx) {
  const orgs = await db.org.findMany({
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    include: { _count: { select: { users: { where: { visitor: false } }, agents: true } } },
  });
  return orgs.map(({ _count, ...org }) => ({ ...org, users: _count.users, agents: _count.agents }));
}

/** Adds to the org's balance in one UPDATE (atomic with concurrent debits); null when there is no such org. */
export async function addOrgCredits(db: DbOrTx, orgId: string, credits: bigint): Promise<Org | null> {
  const [org] = await db.org.updateManyAndReturn({
    where: { id: orgId },
    data: { creditBalance: { increment: credits } },
  });
  return org ?? null;
}
