import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { MockActivityEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityDeps } from '../src/activities/deps.ts';
import { createRunToolActivities } from '../src/activities/run-tool.ts';
import { createSandboxActivities } from '../src/activities/sandbox-activities.ts';
import { readEvents } from '../src/db/event-log.ts';
import { sandboxHostFor } from '../src/sandbox/host.ts';
import { canMountDisks, unmountDisksBelow, WorkspaceDisk } from '../src/sandbox/workspace-disk.ts';
import type { SnapshotResult } from '../src/sandbox/snapshots.ts';
import type { WorkspaceStatus } from '../src/sandbox/workspace.ts';
import { toolCatalog } from '../src/shared/tools/index.ts';
import { call, exchange, userMessage } from './support/http.ts';
import { eventually } from './support/eventually.ts';
import { hostProcesses, sandboxConfig, sandboxHost, uniqueTag, removeSandboxDirs } from './support/sandbox.ts';
import { createTenant, testDb, type Tenant } from './support/tenant.ts';

/** What persists, what is serialized, and how snapshots bring a workspace back. */
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant();
});
afterAll(removeSandboxDirs);

const statuses = () => {
  const seen: WorkspaceStatus[] = [];
  return { seen, onStatus: async (s: WorkspaceStatus) => void seen.push(s) };
};

describe('persistence', () => {
  it('files and HOME persist between operations and between worker processes on the host', async () => {
    const config = sandboxConfig();
    const first = sandboxHost(config).sandbox(tenant.orgId, tenant.agentId);
    const reported = statuses();
    await first.writeFile('src/hello.txt', 'hello from write_file', reported);
    expect(reported.seen).toEqual([{ status: 'sandbox_started', workspace: '/workspace' }]);
    const r = await first.runCommand(
      'cat src/hello.txt && echo from-command > out.txt && mkdir -p ~/.config && echo kept > ~/.config/greeting',
      reported,
    );
    expect(r).toMatchObject({ exit_code: 0, stdout: 'hello from write_file' });
    expect(reported.seen).toHaveLength(1);

    // Another process on the same host (same DATA_DIR) sees the same workspace.
    const second = sandboxHost(config).sandbox(tenant.orgId, tenant.agentId);
    expect((await second.readFile('out.txt')).content).toBe('from-command\n');
    expect((await second.runCommand('cat ~/.config/greeting; pwd')).stdout).toBe('kept\n/workspace\n');
    const listing = await second.listFiles('.', { recursive: true });
    expect(listing.entries.map((e) => e.path)).toEqual(
      expect.arrayContaining(['.home', '.home/.config/greeting', 'out.txt', 'src', 'src/hello.txt']),
    );
  });

  it("the workspace's own disk is mounted again after a restart (the machine's mounts gone)", async () => {
    const config = sandboxConfig();
    const first = sandboxHost(config).sandbox(tenant.orgId, tenant.agentId);
    await first.writeFile('kept.txt', 'on the image');
    expect(first.disk).toBeDefined();
    unmountDisksBelow(config.dataDir);
    expect(existsSync(path.join(first.dir, 'kept.txt'))).toBe(false);
    const reported = statuses();
    const again = sandboxHost(config).sandbox(tenant.orgId, tenant.agentId);
    expect((await again.readFile('kept.txt', reported)).content).toBe('on the image');
    expect(reported.seen).toEqual([]);
    // Commands run on the image again: its size, not the host disk's.
    const size = Number((await again.runCommand('df -B1 --output=size . | tail -1')).stdout);
    expect(size).toBeGreaterThan(32 * 1024 * 1024);
    expect(size).toBeLessThanOrEqual(64 * 1024 * 1024);

    // A larger SANDBOX_DISK_BYTES grows the image when it is mounted next, files kept.
    unmountDisksBelow(config.dataDir);
    const bigger = sandboxHost({ ...config, sandbox: { ...config.sandbox, diskBytes: 128 * 1024 * 1024 } }).sandbox(
      tenant.orgId,
      tenant.agentId,
    );
    const grown = await bigger.runCommand('cat kept.txt; echo; df -B1 --output=size . | tail -1');
    const [kept, grownSize] = grown.stdout.trim().split('\n');
    expect(kept).toBe('on the image');
    expect(Number(grownSize)).toBeGreaterThan(96 * 1024 * 1024);
    expect(Number(grownSize)).toBeLessThanOrEqual(128 * 1024 * 1024);
  });
});

describe("the worker's start-up disk probe", () => {
  const mounted = (dir: string) => readFileSync('/proc/self/mounts', 'utf8').includes(` ${dir}/`);

  it("unmounts and removes the probe a killed worker left mounted, and leaves a running worker's probe alone", async () => {
    const deadPid = spawnSync('true').pid;
    const left = path.join(tmpdir(), `ars-disk-probe-${deadPid}-${uniqueTag()}`);
    await new WorkspaceDisk(path.join(left, 'probe.ext4'), path.join(left, 'mnt'), 8 * 1024 * 1024).mount(true);
    expect(mounted(left)).toBe(true);
    const running = path.join(tmpdir(), `ars-disk-probe-${process.pid}-${uniqueTag()}`);
    mkdirSync(running);
    try {
      expect(await canMountDisks()).toEqual({ ok: true });
      expect(mounted(left)).toBe(false);
      expect(existsSync(left)).toBe(false);
      expect(existsSync(running)).toBe(true);
    } finally {
      unmountDisksBelow(left);
      await rm(left, { recursive: true, force: true });
      await rm(running, { recursive: true, force: true });
    }
  });
});

describe('one operation at a time per sandbox', () => {
  it('commands never overlap, within a process or across processes', async () => {
    const config = sandboxConfig();
    const hosts = [sandboxHost(config), sandboxHost(config)];
    const sandboxes = hosts.map((h) => h.sandbox(tenant.orgId, tenant.privateAgentId));
    await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) =>
        sandboxes[i % 2]!.runCommand(`echo start-${i} >> log; sleep 0.3; echo end-${i} >> log`),
      ),
    );
    const lines = (await sandboxes[0]!.readFile('log')).content.trim().split('\n');
    expect(lines).toHaveLength(12);
    for (let i = 0; i < lines.length; i += 2) {
      const n = lines[i]!.replace('start-', '');
      expect(lines[i + 1]).toBe(`end-${n}`);
    }
  });

  it('a file operation waits for the running command', async () => {
    const sandbox = sandboxHost().sandbox(tenant.orgId, tenant.agentId);
    const tag = uniqueTag();
    const command = sandbox.runCommand(`sleep 0.5${tag}; echo finished > late.txt`);
    await eventually('the command to run', () => expect(hostProcesses(`sleep 0.5${tag}`).length).toBeGreaterThan(0), {
      interval: 20,
    });
    expect((await sandbox.readFile('late.txt')).content).toBe('finished\n');
    await command;
  });
});

describe('snapshots', () => {
  it('restores the latest snapshot when the workspace is gone, on this host or another', async () => {
    const t = await createTenant();
    const sandbox = sandboxHost().sandbox(t.orgId, t.agentId);
    await sandbox.writeFile('data/keep.txt', 'survives restarts');
    await sandbox.runCommand(
      'mkdir -p .home/.local/bin && printf "#!/bin/sh\\necho tool-ok\\n" > .home/.local/bin/mytool && chmod +x .home/.local/bin/mytool',
    );
    const saved = await sandbox.snapshot(undefined);
    expect(saved).toMatchObject({ snapshot_id: expect.stringMatching(/^snap_/), size_bytes: expect.any(Number) });

    await rm(sandbox.dir, { recursive: true, force: true });
    const reported = statuses();
    expect((await sandbox.readFile('data/keep.txt', reported)).content).toBe('survives restarts');
    expect(reported.seen).toEqual([
      expect.objectContaining({
        status: 'sandbox_restored',
        snapshot_id: saved.snapshot_id,
        size_bytes: (saved as { size_bytes: number }).size_bytes,
      }),
    ]);
    // Restored files belong to the sandbox again: commands can change them, installed tools still run.
    const { hostUid } = await sandbox.identity();
    if (hostUid !== undefined) expect(statSync(`${sandbox.dir}/data/keep.txt`).uid).toBe(hostUid);
    const r = await sandbox.runCommand('echo more >> data/keep.txt && mytool');
    expect(r).toMatchObject({ exit_code: 0, stdout: 'tool-ok\n' });

    // A host that never had the workspace (a new container) restores it too.
    const elsewhere = sandboxHost().sandbox(t.orgId, t.agentId);
    expect((await elsewhere.readFile('data/keep.txt')).content).toBe('survives restarts');
  });

  it('keeps the newest few per agent', async () => {
    const t = await createTenant();
    const sandbox = sandboxHost().sandbox(t.orgId, t.agentId);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      await sandbox.writeFile('n.txt', String(i));
      ids.push((await sandbox.snapshot(undefined)).snapshot_id!);
    }
    const kept = await testDb().sandboxSnapshot.findMany({
      where: { orgId: t.orgId, agentId: t.agentId },
      orderBy: { createdAt: 'desc' },
    });
    expect(kept.map((s) => s.id)).toEqual(ids.slice(2).reverse());
  });

  it('skips a workspace over the size cap, and one this host does not have', async () => {
    const t = await createTenant();
    const sandbox = sandboxHost(sandboxConfig({ SANDBOX_SNAPSHOT_MAX_BYTES: '4096' })).sandbox(t.orgId, t.agentId);
    expect(await sandbox.snapshot(undefined)).toEqual({ snapshot_id: null, skipped: 'no_workspace' });
    await sandbox.runCommand('head -c 100000 /dev/urandom > noise.bin');
    expect(await sandbox.snapshot(undefined)).toEqual({
      snapshot_id: null,
      skipped: 'too_large',
      size_limit_bytes: 4096,
    });
    expect(await testDb().sandboxSnapshot.count({ where: { orgId: t.orgId, agentId: t.agentId } })).toBe(0);
  });
});

describe('the tools, through the runTool activity', () => {
  let deps: ActivityDeps;
  let runId: string;
  let taskId: string;

  beforeAll(async () => {
    deps = { db: testDb(), config: sandboxConfig(), logger: pino({ level: 'silent' }), env: {}, deltaFlushMs: 25 };
    // A real run, so SYSTEM_STATUS events have a log to go to.
    const token = await exchange(tenant.keys.member);
    const res = await call('POST', '/api/run', {
      token,
      agentId: tenant.agentId,
      body: { ...userMessage('sandbox tools'), stream: false },
    });
    expect(res.status).toBe(202);
    ({ id: runId, task_id: taskId } = (await res.json()) as { id: string; task_id: string });
  });

  const runTool = (name: string, args: unknown, env = new MockActivityEnvironment()) =>
    env.run(createRunToolActivities(deps).runTool, {
      runId,
      taskId,
      orgId: tenant.orgId,
      agentId: tenant.agentId,
      toolCallId: `call_${uniqueTag()}`,
      name,
      args,
    });

  it('are in the catalog; run_command is sensitive', () => {
    expect(['read_file', 'write_file', 'list_files', 'run_command'].map((n) => toolCatalog.get(n)?.kind)).toEqual([
      'activity',
      'activity',
      'activity',
      'activity',
    ]);
    expect(toolCatalog.get('run_command')?.sensitive).toBe(true);
  });

  it('write, list, read and run, with the workspace start shown as SYSTEM_STATUS', async () => {
    expect(await runTool('write_file', { path: 'app/main.py', content: 'print(6 * 7)\n' })).toEqual({
      ok: true,
      output: { path: 'app/main.py', size_bytes: 13, created: true },
    });
    expect(await runTool('list_files', { path: 'app' })).toEqual({
      ok: true,
      output: { path: 'app', entries: [{ path: 'app/main.py', type: 'file', size_bytes: 13 }], truncated: false },
    });
    expect(await runTool('read_file', { path: '/workspace/app/main.py' })).toMatchObject({
      ok: true,
      output: { content: 'print(6 * 7)\n', encoding: 'utf-8' },
    });
    expect(await runTool('run_command', { command: 'python3 app/main.py', timeout_seconds: 10 })).toMatchObject({
      ok: true,
      output: { exit_code: 0, stdout: '42\n', stderr: '', timed_out: false, truncated: false },
    });
    const events = await readEvents(testDb(), runId, 0, 1000);
    const status = events.filter((e) => e.name === 'SYSTEM_STATUS').map((e) => e.payload);
    expect(status).toEqual([
      expect.objectContaining({
        type: 'CUSTOM',
        name: 'SYSTEM_STATUS',
        data: { status: 'sandbox_started', workspace: '/workspace' },
      }),
    ]);
  });

  it('refusals reach the model as tool errors', async () => {
    expect(await runTool('read_file', { path: '../../../etc/passwd' })).toEqual({
      ok: false,
      error: { code: 'PATH_OUTSIDE_WORKSPACE', message: expect.stringContaining('outside the workspace') },
    });
    expect(await runTool('read_file', { path: 'missing.txt' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await runTool('run_command', { command: 'true', timeout_seconds: 100000 })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENTS' },
    });
    const long = await runTool('read_file', { path: 'x'.repeat(3000) });
    expect(long).toMatchObject({ ok: false, error: { code: 'ENAMETOOLONG' } });
    expect(JSON.stringify(long)).not.toContain(deps.config.dataDir);
  });

  it('cancelling the activity kills the command', async () => {
    const tag = uniqueTag();
    const env = new MockActivityEnvironment();
    const running = runTool('run_command', { command: `sleep 100.${tag}` }, env);
    await eventually('the command to run', () => expect(hostProcesses(`sleep 100.${tag}`).length).toBeGreaterThan(0), {
      interval: 50,
    });
    env.cancel();
    await expect(running).rejects.toThrow();
    expect(hostProcesses(`sleep 100.${tag}`)).toEqual([]);
  });

  it('snapshotSandbox saves the workspace the tools used', async () => {
    const { snapshotSandbox } = createSandboxActivities(deps);
    const result = (await new MockActivityEnvironment().run(snapshotSandbox, {
      orgId: tenant.orgId,
      agentId: tenant.agentId,
      runId,
    })) as SnapshotResult;
    expect(result.snapshot_id).toMatch(/^snap_/);
    const row = await testDb().sandboxSnapshot.findUniqueOrThrow({ where: { id: result.snapshot_id! } });
    expect(row).toMatchObject({ orgId: tenant.orgId, agentId: tenant.agentId, runId });
    expect(sandboxHostFor(deps)).toBe(sandboxHostFor(deps));
  });
});
