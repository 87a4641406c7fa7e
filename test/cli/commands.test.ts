import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess } from '../support/api-process.ts';
import { cliEnv, ndjson, runCli } from '../support/cli.ts';
import { exchange, politeCall as call } from '../support/http.ts';
import type { Caller } from '../support/runs.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';

/*
 * The agent-run bin's other commands, non-interactively (stdin is not a terminal), against the test stack.
 */

let tenant: Tenant;
let env: Record<string, string>;
let member: Caller;

beforeAll(async () => {
  tenant = await createTenant({ approval_required_tools: ['save_memory'] });
  env = cliEnv(tenant.keys.member, tenant.agentId);
  member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
});

describe('help and usage', () => {
  it('--help lists every command, the configuration and the exit codes', async () => {
    const res = await runCli(['--help'], env);
    expect(res.code).toBe(0);
    for (const word of [
      'login',
      'run',
      'follow',
      'answer',
      'tasks',
      'runs',
      'events',
      'approvals',
      'cancel',
      'pause',
      'resume',
      'comment',
      'memories',
    ]) {
      expect(res.stdout).toMatch(new RegExp(`^  ${word}\\b`, 'm'));
    }
    expect(res.stdout).toContain('AGENT_RUN_API_KEY');
    expect(res.stdout).toMatch(/Exit codes:[\s\S]*4 +authentication[\s\S]*5 +rate limited/);
  });

  it('exits 2 on usage errors: unknown command, missing argument, bad option value, no agent', async () => {
    expect((await runCli(['nope'], env)).code).toBe(2);
    expect((await runCli(['run'], env)).code).toBe(2);
    expect((await runCli(['run', '--mode', 'slow', 'hi'], env)).code).toBe(2);
    const noAgent = await runCli(['run', 'hi'], { ...env, AGENT_RUN_AGENT: '' });
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toMatch(/no agent/);
  });

  it('exits 5 when rate limited past what the client waits (Retry-After beyond its 60 s cap)', async () => {
    const limited = await startApiProcess({ RATE_LIMIT_RUNS_PER_MINUTE: '1', RATE_LIMIT_WINDOW_SECONDS: '600' });
    try {
      const own = await createTenant();
      const limitedEnv = cliEnv(own.keys.member, own.agentId, { AGENT_RUN_URL: limited.url });
      expect((await runCli(['run', '--background', 'hello'], limitedEnv)).code).toBe(0);
      const refused = await runCli(['run', '--background', 'hello'], limitedEnv);
      expect(refused.code, refused.stderr).toBe(5);
      expect(refused.stderr).toMatch(/^error: .*rate/im);
    } finally {
      await limited.close();
    }
  });

  it('exits 4 for a key the service refuses, 6 for an unknown task, 7 when nothing listens', async () => {
    const bad = await runCli(['tasks', 'ls'], { ...env, AGENT_RUN_API_KEY: 'ars_live_not_a_key' });
    expect(bad.code, bad.stderr).toBe(4);
    expect(bad.stderr).toMatch(/^error: /m);
    expect((await runCli(['tasks', 'show', 'task_doesnotexist'], env)).code).toBe(6);
    const down = await runCli(['tasks', 'ls'], { ...env, AGENT_RUN_URL: 'http://127.0.0.1:9' });
    expect(down.code, down.stderr).toBe(7);
  });
});

describe('tasks and events', () => {
  it('tasks ls/show, events, then tasks rm', async () => {
    const res = await runCli(['run', '--json', 'Say hello'], env);
    const started = ndjson(res.stdout)[0]!;
    const taskId = started.thread_id as string;
    const runId = started.run_id as string;

    const listed = await runCli(['tasks', 'ls', '--json'], env);
    expect((JSON.parse(listed.stdout) as { tasks: { id: string }[] }).tasks.map((t) => t.id)).toContain(taskId);
    const table = await runCli(['tasks', 'ls'], env);
    expect(table.stdout).toMatch(/^TASK +STATUS/);
    expect(table.stdout).toContain(taskId);

    const shown = await runCli(['tasks', 'show', taskId], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`id: +${taskId}`));
    expect(shown.stdout).toContain(runId);
    expect(JSON.parse((await runCli(['tasks', 'show', '--json', taskId], env)).stdout)).toMatchObject({
      id: taskId,
      runs: [{ id: runId }],
    });

    const page = (await (
      await call('GET', `/api/runs/${runId}/events?limit=1000`, { token: member.token, agentId: member.agentId })
    ).json()) as { events: unknown[] };
    const events = await runCli(['events', '--json', runId], env);
    expect(events.code).toBe(0);
    expect(ndjson(events.stdout)).toEqual(page.events);
    const eventTable = await runCli(['events', runId], env);
    expect(eventTable.stdout.trim().split('\n')).toHaveLength(page.events.length + 1);
    expect(eventTable.stdout).toContain('RUN_FINISHED');

    const removed = await runCli(['tasks', 'rm', taskId], env);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`deleted task ${taskId}`);
    expect((await runCli(['tasks', 'show', taskId], env)).code).toBe(6);
  });
});

describe('approvals and memories', () => {
  it('approvals ls shows a pending gate, approve resolves it, the saved memory is listed', async () => {
    const fact = `The sky is green ${Date.now()}`;
    const start = await runCli(
      ['run', '--json', `/tool save_memory ${JSON.stringify({ content: fact, tags: ['cli'] })}`],
      env,
    );
    expect(start.code, start.stderr).toBe(8);
    const runId = ndjson(start.stdout)[0]!.run_id as string;
    const taskId = ndjson(start.stdout)[0]!.thread_id as string;
    const list = JSON.parse((await runCli(['approvals', '--json'], env)).stdout) as {
      approvals: { id: string; run_id: string }[];
    };
    const approval = list.approvals.find((a) => a.run_id === runId)!;
    expect(approval).toBeDefined();
    const table = await runCli(['approvals', 'ls'], env);
    expect(table.stdout).toMatch(new RegExp(`${approval.id} +action +pending +save_memory`));
    // The runs list finds the waiting run by `needs_you` (a flag given twice, or a comma list).
    const waiting = await runCli(['runs', '--json', '--status', 'needs_you', '--status', 'paused'], env);
    expect((JSON.parse(waiting.stdout) as { runs: { run_id: string }[] }).runs.map((r) => r.run_id)).toEqual([runId]);
    const runs = await runCli(['runs', '--status', 'needs_you,failed', '--agent-id', tenant.agentId], env);
    expect(runs.stdout).toMatch(/^RUN +STATUS +AGENT +SOURCE/);
    // The CLI started it, and says so (X-Agent-Run-Client): its source is cli.
    expect(runs.stdout).toMatch(new RegExp(`${runId} +Needs you · Waiting for approval +\\S+ +cli `));

    const approved = await runCli(['approvals', 'approve', approval.id], env);
    expect(approved.code, approved.stderr).toBe(0);
    expect((await runCli(['follow', taskId], env)).code).toBe(0);
    expect((await runCli(['approvals', 'approve', approval.id], env)).code).toBe(9);

    const memories = JSON.parse((await runCli(['memories', '--json'], env)).stdout) as {
      memories: { content: string }[];
    };
    expect(memories.memories.map((m) => m.content)).toContain(fact);
    const byId = await runCli(['memories', tenant.agentId], { ...env, AGENT_RUN_AGENT: '' });
    expect(byId.stdout).toMatch(/^MEMORY +CREATED +TAGS +CONTENT/);
    expect(byId.stdout).toContain(fact);
  });

  it('reject --feedback tells the agent', async () => {
    const start = await runCli(['run', '--json', `/tool save_memory ${JSON.stringify({ content: 'nope' })}`], env);
    const taskId = ndjson(start.stdout)[0]!.thread_id as string;
    const runId = ndjson(start.stdout)[0]!.run_id as string;
    const list = JSON.parse((await runCli(['approvals', 'ls', '--json'], env)).stdout) as {
      approvals: { id: string; run_id: string }[];
    };
    const approval = list.approvals.find((a) => a.run_id === runId)!;
    const rejected = await runCli(['approvals', 'reject', approval.id, '--feedback', 'not that one'], env);
    expect(rejected.code, rejected.stderr).toBe(0);
    const events = ndjson((await runCli(['follow', '--json', taskId], env)).stdout);
    const result = JSON.parse(events.find((e) => e.type === 'TOOL_CALL_RESULT')!.content as string);
    expect(result).toMatchObject({ error: { code: 'REJECTED', message: expect.stringContaining('not that one') } });
  });
});

describe('login', () => {
  it('checks the key, writes the config file with mode 0600, and later commands use it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agent-run-login-'));
    const configFile = path.join(dir, 'nested', 'config.json');
    const bare = { PATH: env.PATH!, HOME: dir, NO_COLOR: '1' };

    const refused = await runCli(
      ['login', '--config', configFile, '--url', env.AGENT_RUN_URL!, '--key', 'ars_live_wrong'],
      bare,
    );
    expect(refused.code).toBe(4);
    expect(() => statSync(configFile)).toThrow();

    const ok = await runCli(
      [
        'login',
        '--config',
        configFile,
        '--url',
        env.AGENT_RUN_URL!,
        '--key',
        tenant.keys.member,
        '--agent',
        tenant.agentId,
      ],
      bare,
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({
      url: env.AGENT_RUN_URL,
      api_key: tenant.keys.member,
      agent: tenant.agentId,
    });

    const listed = await runCli(['tasks', 'ls', '--json'], { ...bare, AGENT_RUN_CONFIG: configFile });
    expect(listed.code, listed.stderr).toBe(0);
    // Flags and environment win over the file.
    const overridden = await runCli(['tasks', 'ls'], {
      ...bare,
      AGENT_RUN_CONFIG: configFile,
      AGENT_RUN_API_KEY: 'ars_live_wrong',
    });
    expect(overridden.code).toBe(4);
    expect(
      (
        await runCli(['--api-key', tenant.keys.member, 'tasks', 'ls'], {
          ...bare,
          AGENT_RUN_CONFIG: configFile,
          AGENT_RUN_API_KEY: 'ars_live_wrong',
        })
      ).code,
    ).toBe(0);
  });

  it('without a terminal, login needs --url and --key', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agent-run-login-'));
    const res = await runCli(['login', '--config', path.join(dir, 'c.json')], { PATH: env.PATH!, HOME: dir });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--url and --key/);
  });
});
