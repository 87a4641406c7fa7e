import { inject } from 'vitest';
import { seedOrg, seedTag } from '../../src/admin/seed-org.ts';
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
  const tag = seedTag();
  const email = (who: string) => `${who}-${tag}@example.test`;
  const org = await seedOrg(db, {
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
  });
  return {
    orgId: org.id,
    agentId: org.agents['agent']!,
    privateAgentId: org.agents['private']!,
    keys: {
      owner: org.keyOf(email('owner')),
      member: org.keyOf(email('member')),
      outsider: org.keyOf(email('outsider')),
    },
    users: {
      owner: org.users[email('owner')]!,
      member: org.users[email('member')]!,
      outsider: org.users[email('outsider')]!,
    },
  };
}

export interface GuestTenant {
  orgId: string;
  /** A customer-facing agent the guest was granted. */
  agentId: string;
  guestKey: string;
}

/** A fresh org whose only user is a guest with a key and access to one customer-facing agent. */
export async function createGuestTenant(settings: AgentModelSettings = {}): Promise<GuestTenant> {
  const tag = seedTag();
  const guestEmail = `guest-${tag}@example.test`;
  const org = await seedOrg(testDb(), {
    name: `guests-${tag}`,
    credits: 10_000,
    users: [{ email: guestEmail, role: 'guest' }],
    agents: [{ name: 'widget', customer_facing: true, access: [guestEmail], settings }],
    keys: [{ user: guestEmail, name: 'widget' }],
  });
  return { orgId: org.id, agentId: org.agents['widget']!, guestKey: org.keyOf(guestEmail) };
}
