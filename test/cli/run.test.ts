import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ndjson, runCli } from '../support/cli.ts';
import { exchange } from '../support/http.ts';
import { readTaskStream, waitForStatus, type Caller } from '../support/runs.ts';
import { createTenant } from '../support/tenant.ts';

/*
 * `agent-run run`, `follow`, `answer` and run control, non-interactively (stdin is not a terminal), against the test stack.
 */

const ask = (args: Record<string, unknown>) => `Please help.\n/tool request_user_input ${JSON.stringify(args)}`;

let env: Record<string, string>;
let member: Caller;

beforeAll(async () => {
  const tenant = await createTenant();
  env = cliEnv(tenant.keys.member, tenant.agentId);
  member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
});

/** Runs until the task asks, in --json mode: exit 8 after printing the question. */
async function startAsking(
  args: Record<string, unknown>,
): Promise<{ taskId: string; runId: string; question: Record<string, unknown> }> {
  const res = await runCli(['run', '--json', ask(args)], env);
  expect(res.code, res.stderr).toBe(8);
  const events = ndjson(res.stdout);
  const last = events.at(-1)!;
  expect(last).toMatchObject({ type: 'CUSTOM', name: 'USER_INPUT_REQUIRED' });
  expect(res.stderr).toContain(`agent-run answer ${events[0]!.thread_id}`);
  return {
    taskId: events[0]!.thread_id as string,
    runId: events[0]!.run_id as string,
    question: last.data as Record<string, unknown>,
  };
}

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
    const text = stored
      .filter((f) => f.data.type === 'TEXT_MESSAGE_CONTENT')
      .map((f) => f.data.delta)
      .join('');
    expect(res.stdout).toBe(`${text}\n`);
    expect(stored.at(-1)!.data).toMatchObject({ type: 'RUN_FINISHED', run_id: runId });
    const usage = stored.find((f) => f.data.name === 'USAGE')!.data.data as { total_tokens: number; credits: number };
    const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
    expect(res.stderr).toContain(
      `usage: ${counted(usage.total_tokens, 'token')}, ${counted(usage.credits, 'credit')}\n`,
    );
    expect(res.stderr).toMatch(/run finished/);
  });

  it('--background prints the 202 metadata; follow streams the run to its end', async () => {
    const res = await runCli(['run', '--background', '--json', 'Say hello'], env);
    expect(res.code, res.stderr).toBe(0);
    const meta = JSON.parse(res.stdout) as Record<string, unknown>;
    expect(meta).toMatchObject({
      id: expect.stringMatching(/^run_/),
      task_id: expect.stringMatching(/^task_/),
      status: 'pending',
      stream_endpoint: null,
    });
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
    expect(refused.stderr).toContain('422 value must be one of: red, blue (body.value)');
    const answered = await runCli(['answer', taskId, '{"value":"blue"}'], env);
    expect(answered.code, answered.stderr).toBe(0);
    const followed = await runCli(['follow', '--json', taskId], env);
    expect(followed.code, followed.stderr).toBe(0);
    const events = ndjson(followed.stdout);
    const result = events.find((e) => e.type === 'TOOL_CALL_RESULT')!;
    expect(JSON.parse(result.content as string)).toMatchObject({ status: 'answered', value: 'blue' });
    expect((await runCli(['answer', taskId, '{"value":"red"}'], env)).code).toBe(9);
  });

  it('a failed run exits 1 and says why on stderr', async () => {
    const broken = await createTenant({
      provider: 'openai-compatible',
      base_url: 'http://127.0.0.1:9/v1',
      model: 'm',
      api_key_env: 'ARS_TEST_UNSET_KEY',
    });
    const res = await runCli(['run', 'hi'], cliEnv(broken.keys.member, broken.agentId));
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/run failed: .*\(MODEL_CONFIG_ERROR\)/);
  });

  it('a cancelled run exits 3: cancel exits 0, follow then 3, a second cancel 9', async () => {
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
    const statuses = events
      .filter((e) => e.type === 'STATE_DELTA')
      .map((e) => (e.delta as { value: string }[])[0]!.value);
    expect(statuses).toEqual(['executing', 'paused', 'executing', 'completed']);
    expect((await runCli(['resume', taskId], own)).code).toBe(9);
  });

  it("prints none of the escape sequences a run's text carries: answer, plan progress, NDJSON, task list", async () => {
    const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
    const clean = (what: string, out: string) => {
      expect(out, what).not.toContain('\x1b]0;pwned\x07');
      expect(out, what).not.toContain('\x1b[2J');
      expect(out, what).not.toMatch(CONTROL);
    };
    // The offline model echoes the message into its answer's deltas.
    const echoed = await runCli(
      ['run', '--mode', 'fast', 'Title \x1b]0;pwned\x07 clear \x1b[2J bell \x07 csi \x9b31m end'],
      env,
    );
    expect(echoed.code, echoed.stderr).toBe(0);
    const taskId = /task (task_\S+)/.exec(echoed.stderr)![1]!;
    const text = (await readTaskStream(member, taskId))
      .filter((f) => f.data.type === 'TEXT_MESSAGE_CONTENT')
      .map((f) => f.data.delta)
      .join('');
    expect(text).toContain('\x1b]0;pwned\x07 clear \x1b[2J'); // the run really carries them
    clean('answer', echoed.stdout);
    clean('progress', echoed.stderr);
    expect(echoed.stdout).toContain('Title  clear  bell  csi  end');
    // A deep run: the offline model's plan quotes the message, and the CLI prints the plan as progress.
    const planned = await runCli(
      ['run', '--task', taskId, '--mode', 'deep', 'Plan \x1b]0;pwned\x07 it \x1b[2J now'],
      env,
    );
    expect(planned.code, planned.stderr).toBe(0);
    const stored = await readTaskStream(member, taskId);
    const plan = stored.find((f) => f.data.name === 'PLAN_CREATED')!.data.data as { steps: unknown[] };
    expect(JSON.stringify(plan.steps)).toContain('\\u001b]0;pwned\\u0007 it \\u001b[2J');
    clean('deep answer', planned.stdout);
    clean('plan progress', planned.stderr);
    expect(planned.stderr).toMatch(/plan:\n[\s\S]*Work on: Plan +it +now/);
    // NDJSON parses to the stored events, escapes and all; the task list shows the title without them.
    const followed = await runCli(['follow', '--json', taskId], env);
    clean('follow --json', followed.stdout);
    expect(ndjson(followed.stdout).filter((e) => e.type !== 'HEARTBEAT')).toEqual(stored.map((f) => f.data));
    const listed = await runCli(['tasks', 'ls'], env);
    clean('tasks ls', listed.stdout);
    expect(listed.stdout).toContain('Title clear bell csi end');
  });

  it('comment steers a waiting run; the comment shows on its stream', async () => {
    const { taskId, runId, question } = await startAsking({ input_type: 'text', prompt: 'Name?' });
    const commented = await runCli(['comment', taskId, runId, 'Please be brief'], env);
    expect(commented.code, commented.stderr).toBe(0);
    expect((await runCli(['answer', taskId, JSON.stringify({ value: 'Ada' })], env)).code).toBe(0);
    const events = ndjson((await runCli(['follow', '--json', taskId], env)).stdout);
    expect(
      events.some((e) => e.name === 'SYSTEM_STATUS' && (e.data as { status?: string }).status === 'comment_applied'),
    ).toBe(true);
    expect(question.run_id).toBe(runId);
  });
});
