import { randomBytes } from 'node:crypto';
import type { Db } from '../db/client.ts';
import { applyFile, parseApplyFile, type AppliedOrg } from './apply.ts';

/** One org of an apply file, as `admin apply` takes it (parsed and checked by the same code). */
export type OrgSpec = Record<string, unknown> & { name: string };

export interface SeededOrg extends AppliedOrg {
  /** The new API key of the user with that email (created by this apply). */
  keyOf(email: string): string;
}

/**
 * Creates (or brings up to date) one org through the admin code, exactly as an operator's apply
 * file would: the one way the demo tenant, the tests, the bench and the contract run make theirs.
 */
export async function seedOrg(db: Db, spec: OrgSpec): Promise<SeededOrg> {
  const org = (await applyFile(db, parseApplyFile({ orgs: [spec] }))).orgs[0]!;
  return {
    ...org,
    keyOf(email) {
      const key = org.keys.find((k) => k.user === email && k.key)?.key;
      if (!key) throw new Error(`seedOrg: no new key for ${email} in org ${spec.name}`);
      return key;
    },
  };
}

/** A short random tag that keeps seeded names apart (`org-1a2b3c4d`). */
export function seedTag(): string {
  return randomBytes(4).toString('hex');
}
