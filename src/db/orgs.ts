import type { Org } from '../generated/prisma/client.ts';
import type { Db, DbOrTx } from './client.ts';
import { sqlOfPool } from './sql.ts';

export type { Org };

export async function findOrg(db: DbOrTx, orgId: string): Promise<Org | null> {
  return db.org.findUnique({ where: { id: orgId } });
}

/** The org's credit balance (undefined when the org is gone); asked by every run start, so on the pg pool. */
export async function orgCreditBalance(db: Db, orgId: string): Promise<bigint | undefined> {
  const [org] = await sqlOfPool(db).query<{ credit_balance: string }>('SELECT credit_balance FROM orgs WHERE id = $1', [
    orgId,
  ]);
  return org ? BigInt(org.credit_balance) : undefined;
}

/** Every org of that name: names are unique by convention only (the admin lock guards it). */
export async function findOrgsNamed(db: DbOrTx, name: string): Promise<Org[]> {
  return db.org.findMany({ where: { name } });
}

export async function insertOrg(db: DbOrTx, org: { id: string; name: string; creditBalance: bigint }): Promise<Org> {
  return db.org.create({ data: org });
}

/** Every org, oldest first, with how many users and agents it has. */
export async function listOrgsWithCounts(db: DbOrTx) {
  const orgs = await db.org.findMany({
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    include: { _count: { select: { users: true, agents: true } } },
  });
  return orgs.map(({ _count, ...org }) => ({ ...org, users: _count.users, agents: _count.agents }));
}
