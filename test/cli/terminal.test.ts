import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { cliBin, cliEnv } from '../support/cli.ts';
import { exchange } from '../support/http.ts';
import { readTaskStream, type Caller } from '../support/runs.ts';
import { createTenant, testDb } from '../support/tenant.ts';
import { hasTmux, TmuxSession } from '../support/tmux.ts';

/*
 * agent-run in a real pseudo-terminal (tmux): prompts answered with keys, Ctrl-C detaching or
 * cancelling, `follow` picking the run up again. .ci/run installs tmux.
 */

const tool = (name: string, args: Record<string, unknown>) => `/tool ${name} ${JSON.stringify(args)}`;
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

let env: Record<string, string>;
let member: Caller;
const sessions: TmuxSession[] = [];

beforeAll(async () => {
  // A real terminal is what this file tests: without tmux it fails rather than passing empty (.ci/run installs tmux).
  if (!hasTmux) throw new Error('these tests need tmux: apt-get install tmux');
  const tenant = await createTenant({ sandbox: { run_command_approval: false } });
  // No $EDITOR: multiline questions are asked line by line.
  env = { ...cliEnv(tenant.keys.member, tenant.agentId), TERM: 'xterm-256color', EDITOR: '', VISUAL: '' };
  delete env.NO_COLOR;
  member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
});

afterEach(() => {
  for (const s of sessions.splice(0)) s.close();
});

/** `agent-run args…` in a terminal (stdout to `stdoutFile` if given); the shell prints EXIT:<code> after it and keeps the screen. */
function start(args: string[], stdoutFile?: string): TmuxSession {
  const redirect = stdoutFile ? ` > ${quote(stdoutFile)}` : '';
  const session = new TmuxSession(`${cliBin} ${args.map(quote).join(' ')}${redirect}; echo "EXIT:$?"; sleep 600`, env);
  sessions.push(session);
  return session;
}

/** Prompts start with `? ` (the tool-call progress line names the question too, in JSON). */
const taskOf = (screen: string) => /task (task_\w+)/.exec(screen)![1]!;

/** The answers the agent got, from the task's stored stream. */
async function toolResults(taskId: string): Promise<Record<string, unknown>[]> {
  const frames = await readTaskStream(member, taskId);
  return frames
    .filter((f) => f.data.type === 'TOOL_CALL_RESULT')
    .map((f) => JSON.parse(f.data.content as string) as Record<string, unknown>);
}

describe('agent-run in a terminal', () => {
  it('asks a choice, a confirmation, a text and a number question on stderr, then streams the answer to stdout', async () => {
    const message = [
      'Help me.',
      tool('request_user_input', { input_type: 'choice', prompt: 'Pick a colour', choices: ['red', 'blue', 'green'] }),
      tool('request_user_input', { input_type: 'confirmation', prompt: 'Proceed with it?' }),
      tool('request_user_input', { input_type: 'text', prompt: 'Your name?' }),
      tool('request_user_input', { input_type: 'number', prompt: 'How many?' }),
    ].join('\n');
    const answerFile = path.join(mkdtempSync(path.join(tmpdir(), 'agent-run-out-')), 'answer.txt');
    const term = start(['run', message], answerFile);
    await term.waitFor(/Pick a colour[\s\S]*❯ red/);
    term.send(['Down']);
    await term.waitFor(/❯ blue/);
    term.send(['Enter']);
    await term.waitFor(/Proceed with it\? \(Y\/n\)/);
    term.send(['y']);
    term.send(['Enter']);
    await term.waitFor(/\? Your name\?/);
    term.send(['Ada Lovelace'], true);
    term.send(['Enter']);
    await term.waitFor(/\? How many\?/);
    term.send(['many'], true);
    term.send(['Enter']);
    await term.waitFor(/Enter a number/);
    term.send(['C-u']);
    term.send(['42'], true);
    term.send(['Enter']);
    const screen = await term.waitFor(/EXIT:\d+/);
    expect(screen).toContain('EXIT:0');
    expect(screen).toMatch(/run finished/);
    const taskId = taskOf(screen);
    const text = (await readTaskStream(member, taskId))
      .filter((f) => f.data.type === 'TEXT_MESSAGE_CONTENT')
      .map((f) => f.data.delta as string);
    // Only the answer went to stdout; prompts and progress to the terminal through stderr.
    expect(readFileSync(answerFile, 'utf8').replace(/\n/g, '')).toBe(text.join('').replace(/\n/g, ''));
    const results = await toolResults(taskId);
    expect(results).toEqual([
      expect.objectContaining({ status: 'answered', input_type: 'choice', value: 'blue' }),
      expect.objectContaining({ status: 'answered', input_type: 'confirmation', confirmed: true }),
      expect.objectContaining({ status: 'answered', input_type: 'text', value: 'Ada Lovelace' }),
      expect.objectContaining({ status: 'answered', input_type: 'number', value: '42' }),
    ]);
  });

  it('structured questions one by one, multiline text line by line, and Esc dismisses a question', async () => {
    const message = [
      tool('request_user_input', {
        input_type: 'structured_questions',
        prompt: 'A few questions',
        questions: [{ question: 'Size?' }, { question: 'Colour?', choices: ['red', 'blue'] }],
      }),
      tool('request_user_input', { input_type: 'multiline', prompt: 'Describe it' }),
      tool('request_user_input', { input_type: 'text', prompt: 'Anything else?' }),
    ].join('\n');
    const term = start(['run', message]);
    await term.waitFor(/\? Size\?/);
    term.send(['L'], true);
    term.send(['Enter']);
    await term.waitFor(/Colour\?[\s\S]*❯ red/);
    term.send(['Enter']);
    await term.waitFor(/\? line 1 \(empty line to finish\)/);
    term.send(['first line'], true);
    term.send(['Enter']);
    await term.waitFor(/\? line 2 /);
    term.send(['second line'], true);
    term.send(['Enter']);
    await term.waitFor(/\? line 3 /);
    term.send(['Enter']);
    await term.waitFor(/\? Anything else\?/);
    term.send(['Escape']);
    const screen = await term.waitFor(/EXIT:\d+/);
    expect(screen).toContain('EXIT:0');
    expect(await toolResults(taskOf(screen))).toEqual([
      expect.objectContaining({ status: 'answered', answers: { 'Size?': 'L', 'Colour?': 'red' } }),
      expect.objectContaining({ status: 'answered', value: 'first line\nsecond line' }),
      expect.objectContaining({ status: 'dismissed' }),
    ]);
  });

  it('Ctrl-C at a prompt detaches and prints the follow hint; follow asks again and finishes the run', async () => {
    const term = start(['run', tool('request_user_input', { input_type: 'text', prompt: 'Your name?' })]);
    await term.waitFor(/\? Your name\?/);
    term.send(['C-c']);
    const screen = await term.waitFor(/EXIT:\d+/);
    expect(screen).toContain('EXIT:130');
    const taskId = taskOf(screen);
    expect(screen).toContain(`Follow it with: agent-run follow ${taskId}`);

    const again = start(['follow', taskId]);
    await again.waitFor(/\? Your name\?/);
    again.send(['Grace'], true);
    again.send(['Enter']);
    expect(await again.waitFor(/EXIT:\d+/)).toContain('EXIT:0');
    expect(await toolResults(taskId)).toEqual([expect.objectContaining({ value: 'Grace' })]);
  });

  it('Ctrl-C while the run works detaches (the run goes on); with --cancel-on-interrupt it cancels the run', async () => {
    const term = start(['run', tool('run_command', { command: 'sleep 4' })]);
    await term.waitFor(/→ run_command/);
    term.send(['C-c']);
    const screen = await term.waitFor(/EXIT:\d+/);
    expect(screen).toContain('EXIT:130');
    const taskId = taskOf(screen);
    const followed = start(['follow', taskId]);
    expect(await followed.waitFor(/EXIT:\d+/)).toContain('EXIT:0');

    const cancelling = start(['run', '--cancel-on-interrupt', tool('run_command', { command: 'sleep 60' })]);
    await cancelling.waitFor(/→ run_command/);
    cancelling.send(['C-c']);
    const cancelled = await cancelling.waitFor(/EXIT:\d+/);
    expect(cancelled).toContain('cancelling the run');
    expect(cancelled).toContain('EXIT:3');
    expect(cancelled).toMatch(/run cancelled/);
  });

  it('asks a plan approval with editable steps, then an action approval rejected with feedback', async () => {
    const gated = await createTenant({ approval_required_tools: ['save_memory'], require_plan_approval: true });
    const term = new TmuxSession(
      `${cliBin} run --mode deep ${quote(tool('save_memory', { content: 'The sky is green' }))}; echo "EXIT:$?"; sleep 600`,
      { ...env, ...cliEnv(gated.keys.owner, gated.agentId), TERM: 'xterm-256color' },
    );
    sessions.push(term);
    const plan = await term.waitFor(/Plan[\s\S]*❯ Approve/);
    const steps = Number(/(\d+)\. Summarize the results/.exec(plan)![1]);
    term.send(['Down']);
    await term.waitFor(/❯ Edit the steps/);
    term.send(['Enter']);
    for (let i = 1; i <= steps; i++) {
      await term.waitFor(new RegExp(`step ${i} \\(empty removes it\\)`));
      term.send(['Enter']);
    }
    await term.waitFor(new RegExp(`new step ${steps + 1} \\(empty to finish\\)`));
    term.send(['Double-check the result'], true);
    term.send(['Enter']);
    await term.waitFor(new RegExp(`new step ${steps + 2} \\(empty to finish\\)`));
    term.send(['Enter']);
    // No feedback: it would join the conversation as the latest user message, whose /tool line the offline model follows.
    await term.waitFor(/Feedback for the agent/);
    term.send(['Enter']);
    await term.waitFor(/Allow save_memory\?[\s\S]*❯ Approve once/);
    term.send(['Down']);
    await term.waitFor(/❯ Approve save_memory for the rest of this run/);
    term.send(['Down', 'Down']);
    await term.waitFor(/❯ Reject/);
    term.send(['Enter']);
    await term.waitFor(/Why\? \(feedback for the agent/);
    term.send(['not now'], true);
    term.send(['Enter']);
    const screen = await term.waitFor(/EXIT:\d+/);
    expect(screen).toContain('EXIT:0');
    const runId = /run (run_\w+)/.exec(screen)![1]!;
    const requests = await testDb().inputRequest.findMany({ where: { runId }, orderBy: { createdAt: 'asc' } });
    const original = (requests[0]!.details as { plan: { steps: string[] } }).plan.steps;
    expect(requests.map((r) => [r.inputType, r.status, r.answer])).toEqual([
      ['plan_approval', 'answered', { approved: true, modified_steps: [...original, 'Double-check the result'] }],
      ['action_approval', 'answered', { approved: false, feedback: 'not now' }],
    ]);
  });
});

describe('agent-run login in a terminal', () => {
  it('prompts for the url, the key (masked) and the agent, and writes the file with mode 0600', async () => {
    const tenant = await createTenant();
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'agent-run-login-')), 'config.json');
    const bare = { PATH: env.PATH!, HOME: tmpdir(), TERM: 'xterm-256color' };
    const term = new TmuxSession(`${cliBin} login --config ${quote(file)}; echo "EXIT:$?"; sleep 600`, bare);
    sessions.push(term);
    await term.waitFor(/Service url/);
    term.send([inject('apiUrl')], true);
    term.send(['Enter']);
    await term.waitFor(/API key/);
    term.send([tenant.keys.member], true);
    term.send(['Enter']);
    await term.waitFor(/Default agent id/);
    term.send([tenant.agentId], true);
    term.send(['Enter']);
    const screen = await term.waitFor(/EXIT:\d+/);
    expect(screen).toContain('EXIT:0');
    expect(screen).not.toContain(tenant.keys.member);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      url: inject('apiUrl'),
      api_key: tenant.keys.member,
      agent: tenant.agentId,
    });
  });
});
