import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { seedOrg } from '../admin/seed-org.ts';
import type { Db } from '../db/client.ts';

export interface DemoTenant {
  orgId: string;
  agentId: string;
  apiKey: string;
}

/**
 * The tenant the start command prints: org "Demo", its owner and agent
 * "demo-agent". The key is shown once by the admin code, so for local
 * convenience the start command keeps it in the data directory (mode 600).
 */
export async function ensureDemoTenant(db: Db, dataDir: string): Promise<DemoTenant> {
  const file = demoTenantFile(dataDir);
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoTenant) : undefined;
  let org = await applyDemo(db, 'demo');
  let newKey = org.keys.find((k) => k.key)?.key;
  if (!newKey && !saved) {
    // The "demo" key exists but its value was lost with the data directory's file: make another.
    org = await applyDemo(db, `demo-${Date.now()}`);
    newKey = org.keys.find((k) => k.key)?.key;
  }
  const tenant = { orgId: org.id, agentId: org.agents['demo-agent']!, apiKey: newKey ?? saved!.apiKey };
  writeFileSync(file, JSON.stringify(tenant, null, 2), { mode: 0o600 });
  return tenant;
}

/** Where the start command keeps the demo tenant (the console's sign-in page points there). */
export function demoTenantFile(dataDir: string): string {
  return path.join(dataDir, 'demo-tenant.json');
}

function applyDemo(db: Db, keyName: string) {
  return seedOrg(db, {
    name: 'Demo',
    credits: 1_000_000,
    users: [{ email: 'owner@demo.local', name: 'Demo Owner', role: 'owner' }],
    agents: [{ name: 'demo-agent', customer_facing: true, access: ['owner@demo.local'] }],
    keys: [{ user: 'owner@demo.local', name: keyName }],
  });
}
