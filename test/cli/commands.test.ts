import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess } from '../support/api-process.ts';
import { cliEnv, ndjson, runCli } from '../support/cli.ts';
import { exchange, politeCall as call } from '../support/http.ts';
import { readTaskStream, waitForStatus, type Caller } from '../support/runs.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';

/*
 * The agent-run bin, non-interactively (stdin is not a terminal), against the test stack.
 */

const ask = (args: Record<string, unknown>) => `Please help.\n/tool request_user_input ${JSON.stringify(args)}`;

let tenant: Tenant;
let env: Record<string, string>;
let member: Caller;

beforeAll(async () => {
  tenant = await createTenant({ approval_required_tools: ['save_memory'] });
  env = cliEnv(tenant.keys.member, tenant.agentId);
  member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
});

/** Runs until the task asks, in --json mode: exit 8 after printing the question. */
async function startAsking(args: Record<string, unknown>): Promise<{ taskId: string; runId: string; question: Record<string, unknown> }> {
  const res = await runCli(['run', '--json', ask(args)], env);
  expect(res.code, res.stderr).toBe(8);
  const events = ndjson(res.stdout);
  const last = events.at(-1)!;
  expect(last).toMatchObject({ type: 'CUSTOM', name: 'USER_INPUT_REQUIRED' });
  expect(res.stderr).toContain(`agent-run answer ${events[0]!.thread_id}`);
  return { taskId: events[0]!.thread_id as string, runId: events[0]!.run_id as string, question: last.data as Record<string, unknown> };
}

describe('help and usage', () => {
  it('--help lists every command, the configuration and the exit codes', async () => {
    const res = await runCli(['--help'], env);
    expect(res.code).toBe(0);
    for (const word of ['login', 'run', 'follow', 'answer', 'tasks', 'events', 'approvals', 'cancel', 'pause', 'resume', 'comment', 'memories']) {
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

describe('run', () => {
  it('--json prints every event as NDJSON, RUN_STARTED to RUN_FINISHED, and exits 0', async () => {
    const res = await runCli(['run', '--json', '--mode', 'fast', 'Say hello'], env);
    expect(res.code, res.stderr).toBe(0);
    const events = ndjson(res.stdout);
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', mode: 'fast' });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', run_id: events[0]!.run_id });
    expect(events.some((e) => e.type === 'TEXT_MESSAGE_CONTENT')).toBe(true);
    // The same events the api stored, in order (heartbeats aside).
    const stored = await readTaskStream(member, events[0]!.thread_id as string);
    expect(events.filter((e) => e.type !== 'HEARTBEAT')).toEqual(stored.map((f) => f.data));
  });

  it('text mode: the answer alone on stdout, ids and progress on stderr', async () => {
    const res = await runCli(['run', 'Say hello'], env);
    expect(res.code, res.stderr).toBe(0);
    const [, runId, taskId] = /run (run_\S+) +task (task_\S+)/.exec(res.stderr)!;
    const stored = await readTaskStream(member, taskId!);
    const text = stored.filter((f) => f.data.type === 'TEXT_MESSAGE_CONTENT').map((f) => f.data.delta).join('');
    expect(res.stdout).toBe(`${text}\n`);
    expect(stored.at(-1)!.data).toMatchObject({ type: 'RUN_FINISHED', run_id: runId });
    expect(res.stderr).toMatch(/run finished/);
  });

  it('--background prints the 202 metadata; follow streams the run to its end', async () => {
    const res = await runCli(['run', '--background', '--json', 'Say hello'], env);
    expect(res.code, res.stderr).toBe(0);
    const meta = JSON.parse(res.stdout) as Record<string, unknown>;
    expect(meta).toMatchObject({ id: expect.stringMatching(/^run_/), task_id: expect.stringMatching(/^task_/), status: 'pending', stream_endpoint: null });
    const followed = await runCli(['follow', '--json', meta.task_id as string], env);
    expect(followed.code, followed.stderr).toBe(0);
    const events = ndjson(followed.stdout);
    expect(events[0]).toMatchObject({ type: 'RUN_STARTED', run_id: meta.id });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('--json stops with exit 8 when the run asks; answer (JSON) lets it finish; follow shows the rest', async () => {
    const { taskId, question } = await startAsking({ input_type: 'choice', prompt: 'Pick', choices: ['red', 'blue'] });
    expect(question).toMatchObject({ input_type: 'choice', choices: ['red', 'blue'] });
    const refused = await runCli(['answer', taskId, '{"value":"green"}'], env);
    expect(refused.code).toBe(2);
    const answered = await runCli(['answer', taskId, '{"value":"blue"}'], env);
    expect(answered.code, answered.stderr).toBe(0);
    const followed = await runCli(['follow', '--json', taskId], env);
    expect(followed.code, followed.stderr).toBe(0);
    const events = ndjson(followed.stdout);
    const result = events.find((e) => e.type === 'TOOL_CALL_RESULT')!;
    expect(JSON.parse(result.content as string)).toMatchObject({ status: 'answered', value: 'blue' });
    expect((await runCli(['answer', taskId, '{"value":"red"}'], env)).code).toBe(9);
  });

  it('a run that fails or is cancelled exits non-zero: cancel exits 0, follow then 3, a second cancel 9', async () => {
    const { taskId } = await startAsking({ input_type: 'text', prompt: 'Name?' });
    const paused = await runCli(['pause', taskId], env);
    expect(paused.code, paused.stderr).toBe(9);
    const cancelled = await runCli(['cancel', taskId], env);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    const followed = await runCli(['follow', '--json', taskId], env);
    expect(followed.code).toBe(3);
    expect(ndjson(followed.stdout).at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
    expect((await runCli(['cancel', taskId], env)).code).toBe(9);
  });

  it('pause takes effect at the next safe point; resume lets the run finish', async () => {
    const sandboxed = await createTenant({ sandbox: { run_command_approval: false } });
    const own = cliEnv(sandboxed.keys.member, sandboxed.agentId);
    const started = await runCli(['run', '--background', '--json', '/tool run_command {"command":"sleep 3"}'], own);
    const taskId = (JSON.parse(started.stdout) as { task_id: string }).task_id;
    const caller = { token: await exchange(sandboxed.keys.member), agentId: sandboxed.agentId };
    await waitForStatus(caller, taskId, 'executing');
    const paused = await runCli(['pause', '--json', taskId], own);
    expect(paused.code, paused.stderr).toBe(0);
    expect(JSON.parse(paused.stdout)).toMatchObject({ task_id: taskId, action: 'pause' });
    await waitForStatus(caller, taskId, 'paused', 30_000);
    const resumed = await runCli(['resume', taskId], own);
    expect(resumed.code, resumed.stderr).toBe(0);
    const events = ndjson((await runCli(['follow', '--json', taskId], own)).stdout);
    const statuses = events.filter((e) => e.type === 'STATE_DELTA').map((e) => (e.delta as { value: string }[])[0]!.value);
    expect(statuses).toEqual(['executing', 'paused', 'executing', 'completed']);
    expect((await runCli(['resume', taskId], own)).code).toBe(9);
  });

  it('comment steers a waiting run; the comment shows on its stream', async () => {
    const { taskId, runId, question } = await startAsking({ input_type: 'text', prompt: 'Name?' });
    const commented = await runCli(['comment', taskId, runId, 'Please be brief'], env);
    expect(commented.code, commented.stderr).toBe(0);
    expect((await runCli(['answer', taskId, JSON.stringify({ value: 'Ada' })], env)).code).toBe(0);
    const events = ndjson((await runCli(['follow', '--json', taskId], env)).stdout);
    expect(events.some((e) => e.name === 'SYSTEM_STATUS' && (e.data as { status?: string }).status === 'comment_applied')).toBe(true);
    expect(question.run_id).toBe(runId);
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
    expect(JSON.parse((await runCli(['tasks', 'show', '--json', taskId], env)).stdout)).toMatchObject({ id: taskId, runs: [{ id: runId }] });

    const page = (await (await call('GET', `/api/runs/${runId}/events?limit=1000`, { token: member.token, agentId: member.agentId })).json()) as { events: unknown[] };
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
    const start = await runCli(['run', '--json', `/tool save_memory ${JSON.stringify({ content: fact, tags: ['cli'] })}`], env);
    expect(start.code, start.stderr).toBe(8);
    const runId = ndjson(start.stdout)[0]!.run_id as string;
    const taskId = ndjson(start.stdout)[0]!.thread_id as string;
    const list = JSON.parse((await runCli(['approvals', '--json'], env)).stdout) as { approvals: { id: string; run_id: string }[] };
    const approval = list.approvals.find((a) => a.run_id === runId)!;
    expect(approval).toBeDefined();
    const table = await runCli(['approvals', 'ls'], env);
    expect(table.stdout).toMatch(new RegExp(`${approval.id} +action +pending +save_memory`));

    const approved = await runCli(['approvals', 'approve', approval.id], env);
    expect(approved.code, approved.stderr).toBe(0);
    expect((await runCli(['follow', taskId], env)).code).toBe(0);
    expect((await runCli(['approvals', 'approve', approval.id], env)).code).toBe(9);

    const memories = JSON.parse((await runCli(['memories', '--json'], env)).stdout) as { memories: { content: string }[] };
    expect(memories.memories.map((m) => m.content)).toContain(fact);
    const byId = await runCli(['memories', tenant.agentId], { ...env, AGENT_RUN_AGENT: '' });
    expect(byId.stdout).toMatch(/^MEMORY +CREATED +TAGS +CONTENT/);
    expect(byId.stdout).toContain(fact);
  });

  it('reject --feedback tells the agent', async () => {
    const start = await runCli(['run', '--json', `/tool save_memory ${JSON.stringify({ content: 'nope' })}`], env);
    const taskId = ndjson(start.stdout)[0]!.thread_id as string;
    const runId = ndjson(start.stdout)[0]!.run_id as string;
    const list = JSON.parse((await runCli(['approvals', 'ls', '--json'], env)).stdout) as { approvals: { id: string; run_id: string }[] };
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

    const refused = await runCli(['login', '--config', configFile, '--url', env.AGENT_RUN_URL!, '--key', 'ars_live_wrong'], bare);
    expect(refused.code).toBe(4);
    expect(() => statSync(configFile)).toThrow();

    const ok = await runCli(['login', '--config', configFile, '--url', env.AGENT_RUN_URL!, '--key', tenant.keys.member, '--agent', tenant.agentId], bare);
    expect(ok.code, ok.stderr).toBe(0);
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({ url: env.AGENT_RUN_URL, api_key: tenant.keys.member, agent: tenant.agentId });

    const listed = await runCli(['tasks', 'ls', '--json'], { ...bare, AGENT_RUN_CONFIG: configFile });
    expect(listed.code, listed.stderr).toBe(0);
    // Flags and environment win over the file.
    const overridden = await runCli(['tasks', 'ls'], { ...bare, AGENT_RUN_CONFIG: configFile, AGENT_RUN_API_KEY: 'ars_live_wrong' });
    expect(overridden.code).toBe(4);
    expect((await runCli(['--api-key', tenant.keys.member, 'tasks', 'ls'], { ...bare, AGENT_RUN_CONFIG: configFile, AGENT_RUN_API_KEY: 'ars_live_wrong' })).code).toBe(0);
  });

  it('without a terminal, login needs --url and --key', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agent-run-login-'));
    const res = await runCli(['login', '--config', path.join(dir, 'c.json')], { PATH: env.PATH!, HOME: dir });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--url and --key/);
  });
});
