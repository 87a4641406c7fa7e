import { inAdminTransaction } from '../db/admin-lock.ts';
import type { Db, DbOrTx } from '../db/client.ts';
import { addOrgCredits, findOrg, findOrgsNamed, insertOrg as insertOrgRow, listOrgsWithCounts } from '../db/orgs.ts';
import { newId } from '../shared/ids.ts';
import { AdminError } from './errors.ts';

export interface OrgSummary {
  id: string;
  name: string;
  /** Credit balance as a decimal string (the column is a BIGINT). */
  credits: string;
  /** Runs of the org that may be open at once (null: unlimited); set with `admin apply`. */
  max_concurrent_runs: number | null;
  users: number;
  agents: number;
  created_at: string;
}

export interface CreateOrgInput {
  name: string;
  credits?: bigint;
}

/**
 * Creates an org. Org names are unique by convention (the apply file uses the
 * name as the org's key), so a second org with the same name is refused.
 */
export function createOrg(db: Db, input: CreateOrgInput): Promise<OrgSummary> {
  return inAdminTransaction(db, async (tx) => {
    const org = await insertOrg(tx, input);
    return { ...org, max_concurrent_runs: null, users: 0, agents: 0 };
  });
}

/** Inserts an org; the caller holds the admin lock. */
export async function insertOrg(tx: DbOrTx, input: CreateOrgInput) {
  const name = checkOrgName(input.name);
  const credits = input.credits ?? 0n;
  if (credits < 0n) throw new AdminError('credits must not be negative');
  if ((await findOrgsNamed(tx, name)).length > 0) throw new AdminError(`an org named "${name}" already exists`);
  const org = await insertOrgRow(tx, { id: newId('org'), name, creditBalance: credits });
  return { id: org.id, name: org.name, credits: org.creditBalance.toString(), created_at: org.createdAt.toISOString() };
}

export async function listOrgs(db: DbOrTx): Promise<OrgSummary[]> {
  const orgs = await listOrgsWithCounts(db);
  return orgs.map((o) => ({
    id: o.id,
    name: o.name,
    credits: o.creditBalance.toString(),
    max_concurrent_runs: o.maxConcurrentRuns,
    users: o.users,
    agents: o.agents,
    created_at: o.createdAt.toISOString(),
  }));
}

/**
 * Adds `credits` to an org's balance (a top-up) in one statement, so runs billed meanwhile are
 * neither lost nor counted twice; answers the new balance.
 */
export async function addCredits(
  db: DbOrTx,
  orgId: string,
  credits: bigint,
): Promise<{ id: string; name: string; credits: string }> {
  if (credits <= 0n) throw new AdminError('credits to add must be a positive whole number');
  const org = await addOrgCredits(db, orgId, credits);
  if (!org) throw new AdminError(`org ${orgId} not found`);
  return { id: org.id, name: org.name, credits: org.creditBalance.toString() };
}

export async function requireOrg(db: DbOrTx, orgId: string) {
  const org = await findOrg(db, orgId);
  if (!org) throw new AdminError(`org ${orgId} not found`);
  return org;
}

/** Parses a non-negative whole number of credits ("1000"). */
export function parseCredits(value: string): bigint {
  if (!/^\d+$/.test(value.trim())) throw new AdminError(`credits must be a non-negative whole number, got "${value}"`);
  return BigInt(value.trim());
}

function checkOrgName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new AdminError('org name must not be empty');
  return trimmed;
}
