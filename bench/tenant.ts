import { seedOrg, seedTag } from '../src/admin/seed-org.ts';
import type { Db } from '../src/db/client.ts';

export interface Tenant {
  orgId: string;
  /** On the offline model, paced like a real model (15 ms a word). */
  agentId: string;
  /** On the offline model's "instant" variant: a zero-latency model. */
  instantAgentId: string;
  /** On the instant model, with one tool server (`mcpUrl`): the MCP row's runs. */
  mcpAgentId?: string;
  ownerId: string;
  ownerKey: string;
}

/**
 * One org with an owner, two agents on the offline model (paced, and instant; with `mcpUrl`, a third:
 * instant, with that tool server, its echo only) and a key, made by the admin code as an operator would.
 */
export async function createBenchTenant(db: Db, mcpUrl?: string): Promise<Tenant> {
  const tag = seedTag();
  const email = `bench-${tag}@example.test`;
  const org = await seedOrg(db, {
    name: `bench-${tag}`,
    credits: 1_000_000,
    users: [{ email, role: 'owner' }],
    agents: [
      { name: 'bench' },
      { name: 'bench-instant', settings: { provider: 'offline', model: 'instant' } },
      ...(mcpUrl
        ? [
            {
              name: 'bench-mcp',
              settings: {
                provider: 'offline',
                model: 'instant',
                tool_servers: [{ name: 'everything', url: mcpUrl, allowed_tools: ['echo'] }],
              },
            },
          ]
        : []),
    ],
    keys: [{ user: email, name: 'bench' }],
  });
  return {
    orgId: org.id,
    agentId: org.agents['bench']!,
    instantAgentId: org.agents['bench-instant']!,
    mcpAgentId: org.agents['bench-mcp'],
    ownerId: org.users[email]!,
    ownerKey: org.keyOf(email),
  };
}
