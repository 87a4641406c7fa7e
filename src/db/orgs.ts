import type { Org } from '../generated/prisma/client.ts';
import type { DbOrTx } from './client.ts';

export type { Org };

export async function findOrg(db: DbOrTx, orgId: string): Promise<Org | null> {
  return db.org.findUnique({ where: { id: orgId } });
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
