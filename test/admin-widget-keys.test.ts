/**
 * Widget keys through the admin console: `widget-key create|ls|revoke`, stored hashed,
 * refused for an agent that is not customer-facing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createAgent } from '../src/admin/agents.ts';
import { createOrg } from '../src/admin/orgs.ts';
import { hashApiKey } from '../src/auth/api-keys.ts';
import { projectRoot } from '../src/config.ts';
import { testDb } from './support/tenant.ts';

const bin = path.join(projectRoot, 'node_modules', '.bin');
const scratch = mkdtempSync(path.join(tmpdir(), 'ars-widget-admin-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function cli(...args: string[]) {
  const result = spawnSync(path.join(bin, 'tsx'), ['src/main/admin.ts', ...args], {
    cwd: projectRoot,
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      ...process.env,
      PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
      DATABASE_URL: inject('databaseUrl'),
      DATA_DIR: path.join(scratch, 'data'),
    },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('admin widget-key', () => {
  it('creates (key shown once, stored hashed), lists without the key, and revokes once', async () => {
    const org = await createOrg(testDb(), { name: `widget-cli-${Date.now()}` });
    const agent = await createAgent(testDb(), { orgId: org.id, name: 'support', customerFacing: true });
    const created = cli(
      'widget-key',
      'create',
      '--org',
      org.id,
      '--agent',
      agent.id,
      '--name',
      'site',
      '--origins',
      'https://shop.example.com, https://www.example.com/',
      '--json',
    );
    expect(created.stderr).toBe('');
    const key = JSON.parse(created.stdout) as { id: string; key: string; origins: string[] };
    expect(key.key).toMatch(/^ars_pub_/);
    expect(key.origins).toEqual(['https://shop.example.com', 'https://www.example.com']);
    const row = await testDb().widgetKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(row.hash).toBe(hashApiKey(key.key));
    expect(JSON.stringify(row)).not.toContain(key.key);

    const listed = cli('widget-key', 'ls', '--org', org.id);
    expect(listed.stdout).toContain(key.id);
    expect(listed.stdout).not.toContain(key.key);

    const revoked = JSON.parse(cli('widget-key', 'revoke', '--key', key.id, '--json').stdout) as {
      already_revoked: boolean;
      revoked_at: string;
    };
    expect(revoked.already_revoked).toBe(false);
    const again = JSON.parse(cli('widget-key', 'revoke', '--key', key.id, '--json').stdout) as {
      already_revoked: boolean;
      revoked_at: string;
    };
    expect(again).toMatchObject({ already_revoked: true, revoked_at: revoked.revoked_at });
  });

  it('refuses an agent that is not customer-facing, and a path in an origin', async () => {
    const org = await createOrg(testDb(), { name: `widget-cli-bad-${Date.now()}` });
    const internal = await createAgent(testDb(), { orgId: org.id, name: 'internal' });
    const refused = cli(
      'widget-key',
      'create',
      '--org',
      org.id,
      '--agent',
      internal.id,
      '--name',
      'site',
      '--origins',
      'https://shop.example.com',
    );
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/not customer-facing/);
    const support = await createAgent(testDb(), { orgId: org.id, name: 'support', customerFacing: true });
    const badOrigin = cli(
      'widget-key',
      'create',
      '--org',
      org.id,
      '--agent',
      support.id,
      '--name',
      'site',
      '--origins',
      'https://shop.example.com/shop',
    );
    expect(badOrigin.status).toBe(1);
    expect(badOrigin.stderr).toMatch(/must be an origin/);
    expect(await testDb().widgetKey.count({ where: { orgId: org.id } })).toBe(0);
  });
});
