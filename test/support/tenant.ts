import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { applyFile, parseApplyFile } from '../../src/admin/apply.ts';
import { createDb, type Db } from '../../src/db/client.ts';
import type { AgentModelSettings } from '../../src/shared/agent-settings.ts';

let shared: Db | undefined;

/** One Prisma client per test file, on the database the global setup migrated. */
export function testDb(): Db {
  shared ??= createDb(inject('databaseUrl'), 4);
  return shared;
}

/** Closes the file's Prisma client (vitest waits for open handles when a file ends). */
export async function closeTestDb(): Promise<void> {
  await shared?.$disconnect();
  shared = undefined;
}

export interface Tenant {
  orgId: string;
  agentId: string;
  /** An agent of the same org that `member` was not granted. */
  privateAgentId: string;
  keys: { owner: string; member: string; outsider: string };
  users: { owner: string; member: string; outsider: string };
}

/**
 * A fresh org, created through the admin code exactly as an operator would:
 * an owner, a member granted `agent`, a member granted nothing.
 */
export async function createTenant(settings: AgentModelSettings = {}, db: Db = testDb()): Promise<Tenant> {
  const tag = randomBytes(4).toString('hex');
  const email = (who: string) => `${who}-${tag}@example.test`;
  const result = await applyFile(
    db,
    parseApplyFile({
      orgs: [
        {
          name: `org-${tag}`,
          credits: 100_000,
          users: [
            { email: email('owner'), role: 'owner' },
            { email: email('member'), role: 'member' },
            { email: email('outsider'), role: 'member' },
          ],
          agents: [
            { name: 'agent', settings, access: [email('member')] },
            { name: 'private', access: [] },
          ],
          keys: ['owner', 'member', 'outsider'].map((who) => ({ user: email(who), name: 'test' })),
        },
      ],
    }),
  );
  const org = result.orgs[0]!;
  const keyOf = (who: string) => org.keys.find((k) => k.user === email(who))!.key!;
  return {
    orgId: org.id,
    agentId: org.agents['agent']!,
    privateAgentId: org.agents['private']!,
    keys: { owner: keyOf('owner'), member: keyOf('member'), outsider: keyOf('outsider') },
    users: { owner: org.users[email('owner')]!, member: org.users[email('member')]!, outsider: org.users[email('outsider')]! },
  };
}
