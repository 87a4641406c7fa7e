import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAgent, grantAccess, listAgents, revokeAccess } from '../src/admin/agents.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../src/admin/api-keys.ts';
import { applyFile, parseApplyFile } from '../src/admin/apply.ts';
import { AdminError } from '../src/admin/errors.ts';
import { createGrant } from '../src/admin/grants.ts';
import { createOrg, listOrgs } from '../src/admin/orgs.ts';
import { createUser } from '../src/admin/users.ts';
import { hashApiKey } from '../src/auth/api-keys.ts';
import { projectRoot } from '../src/config.ts';
import { createDb, type Db } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';

/**
 * The database under test: the one the global setup provides, or else (when
 * this file runs without it) a fresh, migrated database on the local server.
 */
async function testDatabase(): Promise<{ url: string; drop?: () => Promise<void> }> {
  const provided = (inject as (key: string) => unknown)('databaseUrl');
  if (typeof provided === 'string') return { url: provided };
  const server = 'postgresql://postgres@127.0.0.1:5432';
  const name = `admin_test_${randomBytes(4).toString('hex')}`;
  await adminQuery(`${server}/postgres`, `CREATE DATABASE ${name}`);
  const url = `${server}/${name}`;
  await migrate(url);
  return { url, drop: () => adminQuery(`${server}/postgres`, `DROP DATABASE ${name} WITH (FORCE)`) };
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

let databaseUrl: string;
let dropDatabase: (() => Promise<void>) | undefined;
let db: Db;
let scratch: string;

beforeAll(async () => {
  const database = await testDatabase();
  databaseUrl = database.url;
  dropDatabase = database.drop;
  db = createDb(databaseUrl, 4);
  scratch = mkdtempSync(path.join(tmpdir(), 'admin-test-'));
});

afterAll(async () => {
  await db?.$disconnect();
  await dropDatabase?.();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const unique = (base: string) => `${base}-${randomBytes(4).toString('hex')}`;

describe('admin operations', () => {
  it('creates an org with a credit balance and refuses a duplicate name', async () => {
    const name = unique('Acme');
    const org = await createOrg(db, { name, credits: 1500n });
    expect(org).toMatchObject({ name, credits: '1500', users: 0, agents: 0 });
    expect(org.id).toMatch(/^org_[0-9a-f]{32}$/);
    expect((await db.org.findUniqueOrThrow({ where: { id: org.id } })).creditBalance).toBe(1500n);
    expect((await createOrg(db, { name: unique('Zero') })).credits).toBe('0');
    await expect(createOrg(db, { name })).rejects.toThrow(AdminError);
    expect((await listOrgs(db)).filter((o) => o.name === name)).toHaveLength(1);
  });

  it('creates users, validating role, email and uniqueness within the org', async () => {
    const org = await createOrg(db, { name: unique('Users') });
    const user = await createUser(db, { orgId: org.id, email: 'ann@example.test', name: 'Ann', role: 'owner' });
    expect(user).toMatchObject({ org_id: org.id, email: 'ann@example.test', name: 'Ann', role: 'owner' });
    expect(user.id).toMatch(/^usr_/);
    await expect(createUser(db, { orgId: org.id, email: 'ann@example.test', role: 'member' })).rejects.toThrow(
      /already exists/,
    );
    await expect(createUser(db, { orgId: org.id, email: 'bob@example.test', role: 'boss' })).rejects.toThrow(
      AdminError,
    );
    await expect(createUser(db, { orgId: org.id, email: 'not-an-email', role: 'member' })).rejects.toThrow(/email/);
    await expect(createUser(db, { orgId: 'org_missing', email: 'c@example.test', role: 'member' })).rejects.toThrow(
      /not found/,
    );
  });

  it('creates agents with validated settings and an access list, and grants and revokes access', async () => {
    const org = await createOrg(db, { name: unique('Agents') });
    const other = await createOrg(db, { name: unique('Other') });
    const bob = await createUser(db, { orgId: org.id, email: 'bob@example.test', role: 'member' });
    const eve = await createUser(db, { orgId: org.id, email: 'eve@example.test', role: 'guest' });
    const outsider = await createUser(db, { orgId: other.id, email: 'out@example.test', role: 'member' });

    const agent = await createAgent(db, {
      orgId: org.id,
      name: 'support',
      customerFacing: true,
      settings: { provider: 'openai', model: 'gpt-4.1', temperature: 0.3 },
      access: [bob.id],
    });
    expect(agent).toMatchObject({ name: 'support', customer_facing: true, access: [bob.id] });
    expect(agent.settings).toEqual({ provider: 'openai', model: 'gpt-4.1', temperature: 0.3 });

    await expect(createAgent(db, { orgId: org.id, name: 'bad', settings: { temperature: 5 } })).rejects.toThrow(
      /settings\.temperature/,
    );
    await expect(createAgent(db, { orgId: org.id, name: 'bad', settings: { nope: 1 } })).rejects.toThrow(AdminError);
    await expect(createAgent(db, { orgId: org.id, name: 'bad', access: [outsider.id] })).rejects.toThrow(
      /not a member/,
    );
    await expect(createAgent(db, { orgId: org.id, name: 'support' })).rejects.toThrow(/already exists/);
    expect((await listAgents(db, org.id)).map((a) => a.name)).toEqual(['support']);

    expect(await grantAccess(db, agent.id, eve.id)).toEqual({ granted: true });
    expect(await grantAccess(db, agent.id, eve.id)).toEqual({ granted: false });
    await expect(grantAccess(db, agent.id, outsider.id)).rejects.toThrow(/not a member/);
    expect(await revokeAccess(db, agent.id, bob.id)).toEqual({ revoked: true });
    expect(await revokeAccess(db, agent.id, bob.id)).toEqual({ revoked: false });
    const rows = await db.agentAccess.findMany({ where: { agentId: agent.id } });
    expect(rows.map((r) => r.userId)).toEqual([eve.id]);
  });

  it('stores API keys only as a hash and shows the key only on creation', async () => {
    const org = await createOrg(db, { name: unique('Keys') });
    const user = await createUser(db, { orgId: org.id, email: 'k@example.test', role: 'member' });
    const created = await createApiKey(db, { userId: user.id, name: 'ci' });
    expect(created.id).toMatch(/^key_/);
    expect(created.key).toMatch(/^ars_live_/);
    expect(created.key.startsWith(created.prefix)).toBe(true);

    const row = await db.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row).toMatchObject({ orgId: org.id, userId: user.id, name: 'ci', prefix: created.prefix });
    expect(row.hash).toBe(hashApiKey(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);

    const listed = await listApiKeys(db, { userId: user.id });
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('key');
    expect(JSON.stringify(listed)).not.toContain(created.key);

    const revoked = await revokeApiKey(db, created.id);
    expect(revoked.already_revoked).toBe(false);
    expect(revoked.revoked_at).not.toBeNull();
    const again = await revokeApiKey(db, created.id);
    expect(again).toMatchObject({ already_revoked: true, revoked_at: revoked.revoked_at });
    await expect(revokeApiKey(db, 'key_missing')).rejects.toThrow(/not found/);
  });
});

function sampleFile(orgName: string) {
  return {
    orgs: [
      {
        name: orgName,
        credits: 1000,
        users: [
          { email: 'ann@acme.test', role: 'owner', name: 'Ann' },
          { email: 'bob@acme.test', role: 'member' },
        ],
        agents: [
          {
            name: 'support',
            customer_facing: true,
            settings: { provider: 'openai', model: 'gpt-4.1', temperature: 0.2 },
            access: ['bob@acme.test'],
          },
          { name: 'internal' },
        ],
        keys: [
          { user: 'ann@acme.test', name: 'ci' },
          { user: 'bob@acme.test', name: 'laptop' },
        ],
      },
    ],
  };
}

async function countsOf(orgId: string) {
  return {
    users: await db.user.count({ where: { orgId } }),
    agents: await db.agent.count({ where: { orgId } }),
    keys: await db.apiKey.count({ where: { orgId } }),
    access: await db.agentAccess.count({ where: { agent: { orgId } } }),
  };
}

describe('apply', () => {
  it('is idempotent: a second apply keeps the ids and creates nothing', async () => {
    const name = unique('Acme');
    const first = await applyFile(db, parseApplyFile(sampleFile(name)));
    const org = first.orgs[0]!;
    expect(org).toMatchObject({ name, credits: '1000' });
    expect(Object.keys(org.users)).toEqual(['ann@acme.test', 'bob@acme.test']);
    expect(Object.keys(org.agents)).toEqual(['support', 'internal']);
    expect(org.keys.every((k) => k.key?.startsWith('ars_live_'))).toBe(true);
    expect(first.changes.length).toBeGreaterThan(0);
    const key = org.keys[0]!;
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).hash).toBe(hashApiKey(key.key!));
    const counts = await countsOf(org.id);
    expect(counts).toEqual({ users: 2, agents: 2, keys: 2, access: 1 });

    const second = await applyFile(db, parseApplyFile(sampleFile(name)));
    expect(second.changes).toEqual([]);
    const again = second.orgs[0]!;
    expect(again.id).toBe(org.id);
    expect(again.users).toEqual(org.users);
    expect(again.agents).toEqual(org.agents);
    expect(again.keys.map((k) => k.id)).toEqual(org.keys.map((k) => k.id));
    expect(again.keys.some((k) => 'key' in k)).toBe(false);
    expect(await countsOf(org.id)).toEqual(counts);
    expect(await db.org.count({ where: { name } })).toBe(1);
  });

  it('updates what the file states, sets credits only on creation, and replaces a re-created revoked key', async () => {
    const name = unique('Change');
    const first = (await applyFile(db, parseApplyFile(sampleFile(name)))).orgs[0]!;
    await db.org.update({ where: { id: first.id }, data: { creditBalance: 7n } });
    await revokeApiKey(db, first.keys[1]!.id);

    const edited = sampleFile(name);
    const spec = edited.orgs[0]!;
    spec.credits = 5;
    spec.users[1]!.role = 'admin';
    spec.agents[0]!.access = ['ann@acme.test'];
    spec.agents[0]!.settings = { provider: 'openai', model: 'gpt-4.1', temperature: 0.5 };

    const result = await applyFile(db, parseApplyFile(edited));
    const org = result.orgs[0]!;
    expect(org.credits).toBe('7');
    expect(org.keys[0]!.id).toBe(first.keys[0]!.id);
    expect(org.keys[0]).not.toHaveProperty('key');
    expect(org.keys[1]!.id).not.toBe(first.keys[1]!.id);
    expect(org.keys[1]!.key).toMatch(/^ars_live_/);
    expect(result.changes).toEqual([
      `updated user bob@acme.test in org "${name}": role member → admin`,
      `updated agent "support" in org "${name}": settings`,
      `granted agent "support" in org "${name}" to ann@acme.test`,
      `revoked agent "support" in org "${name}" from bob@acme.test`,
      `created key "laptop" for bob@acme.test in org "${name}" (${org.keys[1]!.id})`,
    ]);
    const bob = await db.user.findUniqueOrThrow({ where: { id: org.users['bob@acme.test']! } });
    expect(bob.role).toBe('admin');
    const agent = await db.agent.findUniqueOrThrow({ where: { id: org.agents.support! }, include: { access: true } });
    expect(agent.modelSettings).toEqual({ provider: 'openai', model: 'gpt-4.1', temperature: 0.5 });
    expect(agent.access.map((a) => a.userId)).toEqual([org.users['ann@acme.test']]);
    expect((await applyFile(db, parseApplyFile(edited))).changes).toEqual([]);
  });

  it('rejects an invalid file with every problem and its path', () => {
    const bad = {
      orgs: [
        {
          name: '',
          credits: -1,
          users: [{ email: 'nope', role: 'boss' }],
          agents: [{ name: 'a', settings: { temperature: 9 }, customerFacing: true }],
        },
      ],
    };
    let error: unknown;
    try {
      parseApplyFile(bad);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AdminError);
    const message = (error as Error).message;
    for (const path of [
      'orgs.0.name',
      'orgs.0.credits',
      'orgs.0.users.0.email',
      'orgs.0.users.0.role',
      'orgs.0.agents.0.settings.temperature',
      'orgs.0.agents.0: Unrecognized key: "customerFacing"',
    ]) {
      expect(message).toContain(path);
    }
    const duplicates = {
      orgs: [
        {
          name: 'X',
          users: [
            { email: 'a@x.test', role: 'owner' },
            { email: 'a@x.test', role: 'guest' },
          ],
        },
      ],
    };
    expect(() => parseApplyFile(duplicates)).toThrow('orgs.0.users.1: duplicate email');
  });

  it('changes nothing when applying fails part-way', async () => {
    const name = unique('Broken');
    const file = sampleFile(name);
    file.orgs[0]!.keys.push({ user: 'nobody@acme.test', name: 'x' });
    await expect(applyFile(db, parseApplyFile(file))).rejects.toThrow(
      `orgs.0.keys.2.user: no user with email nobody@acme.test in org "${name}"`,
    );
    expect(await db.org.count({ where: { name } })).toBe(0);
  });

  it('rolls back a dry run and shows no keys', async () => {
    const name = unique('Dry');
    const result = await applyFile(db, parseApplyFile(sampleFile(name)), { dryRun: true });
    expect(result.dry_run).toBe(true);
    expect(result.changes[0]).toContain(`created org "${name}"`);
    expect(result.orgs[0]!.keys.some((k) => 'key' in k)).toBe(false);
    expect(await db.org.count({ where: { name } })).toBe(0);
  });
});

describe('admin CLI', () => {
  const bin = path.join(projectRoot, 'node_modules', '.bin');

  function cli(...args: string[]) {
    const result = spawnSync(path.join(bin, 'tsx'), ['src/main/admin.ts', ...args], {
      cwd: projectRoot,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...process.env,
        PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
        DATABASE_URL: databaseUrl,
        DATA_DIR: path.join(scratch, 'data'),
      },
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('applies a file and prints the ids and new keys as JSON, then nothing new', () => {
    const name = unique('Cli');
    const file = path.join(scratch, `${name}.json`);
    writeFileSync(file, JSON.stringify(sampleFile(name)));

    const first = cli('apply', file, '--json');
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const out = JSON.parse(first.stdout) as Awaited<ReturnType<typeof applyFile>>;
    const org = out.orgs[0]!;
    expect(org.name).toBe(name);
    expect(org.id).toMatch(/^org_/);
    expect(org.users['ann@acme.test']).toMatch(/^usr_/);
    expect(org.agents.support).toMatch(/^agt_/);
    expect(org.keys.map((k) => k.key?.slice(0, 9))).toEqual(['ars_live_', 'ars_live_']);

    const second = cli('apply', file, '--json');
    expect(second.status).toBe(0);
    const again = JSON.parse(second.stdout) as typeof out;
    expect(again.changes).toEqual([]);
    expect(again.orgs[0]!.id).toBe(org.id);
    expect(again.orgs[0]!.keys.map((k) => k.id)).toEqual(org.keys.map((k) => k.id));
    expect(again.orgs[0]!.keys.some((k) => 'key' in k)).toBe(false);
    for (const k of org.keys) expect(second.stdout).not.toContain(k.key!);
  });

  it('reports errors on stderr with exit code 1 and no stack', () => {
    const file = path.join(scratch, 'bad.json');
    writeFileSync(file, JSON.stringify({ orgs: [{ name: 'Bad', users: [{ email: 'x', role: 'owner' }] }] }));
    const bad = cli('apply', file, '--json');
    expect(bad.status).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('orgs.0.users.0.email: Invalid email address');
    expect(bad.stderr).not.toMatch(/\n\s+at /);

    const missing = cli('key', 'revoke', '--key', 'key_missing');
    expect(missing.status).toBe(1);
    expect(missing.stderr.trim()).toBe('error: API key key_missing not found');
  });

  it('runs the single commands with --json', () => {
    const json = (args: string[]) => {
      const r = cli(...args, '--json');
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    const org = json(['org', 'create', '--name', unique('CliOrg'), '--credits', '42']);
    expect(org.credits).toBe('42');
    expect(json(['org', 'credits', '--org', String(org.id), '--add', '1000'])).toMatchObject({ credits: '1042' });
    const refused = cli('org', 'credits', '--org', String(org.id), '--add', '0');
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe('error: credits to add must be a positive whole number');
    const user = json(['user', 'create', '--org', String(org.id), '--email', 'u@cli.test', '--role', 'member']);
    const agent = json([
      'agent',
      'create',
      '--org',
      String(org.id),
      '--name',
      'helper',
      '--customer-facing',
      '--settings',
      '{"model":"m1"}',
      '--access',
      String(user.id),
    ]);
    expect(agent).toMatchObject({ customer_facing: true, settings: { model: 'm1' }, access: [user.id] });
    expect(json(['agent', 'revoke', '--agent', String(agent.id), '--user', String(user.id)])).toMatchObject({
      revoked: true,
    });
    const key = json(['key', 'create', '--user', String(user.id), '--name', 'ci']);
    expect(String(key.key)).toMatch(/^ars_live_/);
    const listed = cli('key', 'list', '--user', String(user.id), '--json');
    expect(listed.stdout).not.toContain(String(key.key));
    expect(json(['key', 'revoke', '--key', String(key.id)])).toMatchObject({ already_revoked: false });
  });

  it('creates, lists and revokes approval grants; revoking twice is a no-op', async () => {
    const org = await createOrg(db, { name: unique('Grants') });
    const owner = await createUser(db, { orgId: org.id, email: 'own@grants.test', role: 'owner' });
    const agent = await createAgent(db, { orgId: org.id, name: 'helper' });
    const json = (args: string[]) => {
      const r = cli(...args, '--json');
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };

    const created = json(['grant', 'create', '--agent', agent.id, '--tool', 'save_memory', '--by', owner.id]);
    expect(created).toMatchObject({
      org_id: org.id,
      agent_id: agent.id,
      tool_name: 'save_memory',
      granted_by: owner.id,
      revoked_at: null,
      already_granted: false,
    });
    expect(String(created.id)).toMatch(/^grt_[0-9a-f]{32}$/);
    // The same check the run workflow makes before opening an approval gate.
    const active = { orgId: org.id, agentId: agent.id, toolName: 'save_memory', revokedAt: null };
    expect(await db.approvalGrant.count({ where: active })).toBe(1);
    const again = json(['grant', 'create', '--agent', agent.id, '--tool', 'save_memory', '--by', owner.id]);
    expect(again).toMatchObject({ id: created.id, already_granted: true });
    expect(await db.approvalGrant.count({ where: { agentId: agent.id } })).toBe(1);

    const { already_granted: _, ...summary } = created;
    expect(json(['grant', 'list', '--agent', agent.id])).toEqual([summary]);
    expect(json(['grant', 'list', '--org', org.id])).toEqual([summary]);
    const table = cli('grant', 'list', '--org', org.id);
    expect(table.stdout).toMatch(/^ID\s+ORG\s+AGENT\s+TOOL\s+GRANTED BY\s+CREATED\s+REVOKED\n/);
    expect(table.stdout).toContain(`${String(created.id)}  ${org.id}  ${agent.id}  save_memory`);

    const revoked = json(['grant', 'revoke', '--grant', String(created.id)]);
    expect(revoked).toMatchObject({ id: created.id, already_revoked: false });
    expect(revoked.revoked_at).toEqual(expect.any(String));
    expect(await db.approvalGrant.count({ where: active })).toBe(0);
    expect(json(['grant', 'list', '--agent', agent.id])).toEqual([]);
    expect(json(['grant', 'list', '--agent', agent.id, '--all'])).toEqual([
      { ...summary, revoked_at: revoked.revoked_at },
    ]);

    const twice = cli('grant', 'revoke', '--grant', String(created.id));
    expect(twice.status).toBe(0);
    expect(twice.stdout.trim()).toBe(`already revoked grant ${String(created.id)} at ${String(revoked.revoked_at)}`);
  });

  it('refuses grants for unknown tools, agents and grants, and for users outside the org', async () => {
    const org = await createOrg(db, { name: unique('GrantErrors') });
    const owner = await createUser(db, { orgId: org.id, email: 'own@grants.test', role: 'owner' });
    const member = await createUser(db, { orgId: org.id, email: 'mem@grants.test', role: 'member' });
    const other = await createOrg(db, { name: unique('GrantOther') });
    const outsider = await createUser(db, { orgId: other.id, email: 'out@grants.test', role: 'owner' });
    const agent = await createAgent(db, {
      orgId: org.id,
      name: 'helper',
      settings: { sensitive_tools: ['save_memory'] },
    });
    const refused = (args: string[], message: string | RegExp) => {
      const r = cli(...args, '--json');
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      if (typeof message === 'string') expect(r.stderr.trim()).toBe(`error: ${message}`);
      else expect(r.stderr).toMatch(message);
    };

    refused(
      ['grant', 'create', '--agent', agent.id, '--tool', 'nope', '--by', owner.id],
      /^error: unknown tool "nope"; known tools: .*run_command/,
    );
    refused(
      ['grant', 'create', '--agent', 'agt_missing', '--tool', 'save_memory', '--by', owner.id],
      'agent agt_missing not found',
    );
    refused(
      ['grant', 'create', '--agent', agent.id, '--tool', 'save_memory', '--by', outsider.id],
      `user ${outsider.id} is not a member of org ${org.id}`,
    );
    refused(['grant', 'revoke', '--grant', 'grt_missing'], 'grant grt_missing not found');
    refused(['grant', 'list', '--org', 'org_missing'], 'org org_missing not found');
    expect(await db.approvalGrant.count({ where: { agentId: agent.id } })).toBe(0);

    // Sensitive tools (the catalog's, and the agent's own sensitive_tools) need an owner or admin, as approving them does.
    await expect(createGrant(db, { agentId: agent.id, toolName: 'run_command', grantedBy: member.id })).rejects.toThrow(
      /sensitive tool/,
    );
    await expect(createGrant(db, { agentId: agent.id, toolName: 'save_memory', grantedBy: member.id })).rejects.toThrow(
      AdminError,
    );
    expect(await createGrant(db, { agentId: agent.id, toolName: 'recall_memory', grantedBy: member.id })).toMatchObject(
      {
        granted_by: member.id,
        already_granted: false,
      },
    );
    expect(await createGrant(db, { agentId: agent.id, toolName: 'run_command', grantedBy: owner.id })).toMatchObject({
      already_granted: false,
    });
  });

  it("grants a tool of one of the agent's tool servers (server__tool), within its allowed_tools", async () => {
    const org = await createOrg(db, { name: unique('McpGrants') });
    const owner = await createUser(db, { orgId: org.id, email: 'own@mcp-grants.test', role: 'owner' });
    const member = await createUser(db, { orgId: org.id, email: 'mem@mcp-grants.test', role: 'member' });
    const agent = await createAgent(db, {
      orgId: org.id,
      name: 'helper',
      settings: {
        sensitive_tools: ['tickets__*'],
        tool_servers: [
          { name: 'tickets', url: 'http://127.0.0.1:9/mcp' },
          { name: 'wiki', url: 'http://127.0.0.1:9/mcp', allowed_tools: ['search'] },
        ],
      },
    });
    const grant = (tool: string, by = owner.id) =>
      cli('grant', 'create', '--agent', agent.id, '--tool', tool, '--by', by, '--json');

    const created = grant('tickets__create_issue');
    expect(created.stderr).toBe('');
    expect(JSON.parse(created.stdout)).toMatchObject({ tool_name: 'tickets__create_issue', already_granted: false });
    expect(JSON.parse(grant('wiki__search', member.id).stdout)).toMatchObject({ tool_name: 'wiki__search' });
    // Sensitive through tickets__*: a member may not grant it.
    expect(grant('tickets__close_issue', member.id).stderr).toMatch(/tickets__close_issue is a sensitive tool/);
    for (const tool of ['wiki__edit', 'nowhere__search', 'tickets__', 'tickets__bad.name']) {
      const refused = grant(tool);
      expect(refused.status, tool).toBe(1);
      expect(refused.stderr).toContain(`unknown tool "${tool}"`);
      expect(refused.stderr).toContain('tickets__<tool>, wiki__<tool>');
    }
    expect(await db.approvalGrant.count({ where: { agentId: agent.id } })).toBe(2);
  });
});
