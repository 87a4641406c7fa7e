import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess } from '../support/api-process.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { call, exchange, readSse, withoutHeartbeats } from '../support/http.ts';
import { expectOneTerminal, readTaskStream, types } from '../support/runs.ts';
import { createTenant, testDb } from '../support/tenant.ts';
import { startWorkerProcess } from '../support/worker-process.ts';
import { unmountDisksBelow } from '../../src/sandbox/workspace-disk.ts';
import { eventually } from '../support/eventually.ts';

describe('one streamed deep-mode run on an OpenAI-compatible model', () => {
  let fake: FakeOpenAi;
  beforeAll(async () => {
    fake = await startFakeOpenAi({
      chunks: ['unused'],
      responses: [
        { chunks: ['1. Write and run a script\n', '2. Remember the answer and report it'] },
        {
          chunks: ['Writing the script.'],
          toolCalls: [
            { name: 'write_file', args: { path: 'answer.py', content: 'print(6 * 7)\n' } },
            { name: 'run_command', args: { command: 'python3 answer.py' } },
          ],
        },
        { chunks: ['The script printed 42.'] },
        {
          toolCalls: [
            { name: 'save_memory', args: { content: 'The answer computed by answer.py is 42', tags: ['answer'] } },
            {
              name: 'create_artifact',
              args: { kind: 'table', title: 'Answer', content: { columns: ['answer'], rows: [[42]] } },
            },
          ],
        },
        { chunks: ['The answer is ', '42.'] },
      ],
    });
  });
  afterAll(async () => fake.close());

  it('plans, uses the sandbox, remembers, produces an artifact and reports usage', async () => {
    const tenant = await createTenant({
      provider: 'openai-compatible',
      base_url: fake.baseUrl,
      model: 'planner',
      sandbox: { run_command_approval: false },
    });
    const token = await exchange(tenant.keys.owner);
    const res = await call('POST', '/api/run', {
      token,
      agentId: tenant.agentId,
      body: { messages: [{ role: 'user', content: 'What is 6 times 7?' }], mode: 'deep' },
    });
    const frames = withoutHeartbeats(await readSse(res));
    const order = types(frames);
    expect(frames[0]!.data).toMatchObject({ type: 'RUN_STARTED', mode: 'deep' });
    const plan = frames.find((f) => f.data.name === 'PLAN_CREATED')!.data.data as { steps: { title: string }[] };
    expect(plan.steps.map((s) => s.title)).toEqual(['Write and run a script', 'Remember the answer and report it']);
    for (const type of [
      'STATE_SNAPSHOT',
      'STATE_DELTA',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'CUSTOM:ARTIFACT_CREATED',
      'CUSTOM:ARTIFACT_COMPLETED',
      'CUSTOM:USAGE',
    ]) {
      expect(order, type).toContain(type);
    }
    const results = frames
      .filter((f) => f.data.type === 'TOOL_CALL_RESULT')
      .map((f) => JSON.parse(f.data.content as string));
    expect(results).toHaveLength(4);
    expect(results[1]).toMatchObject({ exit_code: 0, stdout: '42\n' });
    const usage = frames.find((f) => f.data.name === 'USAGE')!.data.data as {
      steps: { step: string }[];
      credits: number;
    };
    expect(usage.steps.map((s) => s.step)).toEqual([
      'plan',
      'plan-step:0:0',
      'plan-step:0:1',
      'plan-step:1:0',
      'plan-step:1:1',
    ]);
    expect(expectOneTerminal(frames)).toMatchObject({
      type: 'RUN_FINISHED',
      result: { text: 'The answer is 42.', plan: plan.steps.map((s) => s.title) },
    });
    expect(await testDb().memory.count({ where: { agentId: tenant.agentId, content: { contains: '42' } } })).toBe(1);
    expect(
      await testDb().artifact.count({ where: { taskId: frames[0]!.data.thread_id as string, kind: 'table' } }),
    ).toBe(1);
    // The model saw each tool's result before its next step.
    const third = fake.requests[2] as { messages: { role: string; content: unknown }[] };
    expect(third.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
  });
});

describe('the persistent workspace', () => {
  it('survives a worker restart and the loss of its directory', async () => {
    const tenant = await createTenant();
    const who = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
    const queue = `workspace-${randomBytes(3).toString('hex')}`;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'ars-worker-'));
    const api = await startApiProcess({ TEMPORAL_TASK_QUEUE: queue });
    let worker = await startWorkerProcess(queue, { DATA_DIR: dataDir });
    const run = async (content: string) => {
      const res = await fetch(`${api.url}/api/run`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${who.token}`,
          'X-Agent-Id': who.agentId,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ messages: [{ role: 'user', content }], stream: false }),
      });
      return readTaskStream(who, ((await res.json()) as { task_id: string }).task_id);
    };
    try {
      const first = await run('/tool write_file {"path":"notes/keep.txt","content":"survives restarts"}');
      expect(expectOneTerminal(first).type).toBe('RUN_FINISHED');
      expect(types(first)).toContain('CUSTOM:SYSTEM_STATUS');
      await eventually(
        'a workspace snapshot',
        async () =>
          expect(await testDb().sandboxSnapshot.count({ where: { agentId: tenant.agentId } })).toBeGreaterThan(0),
        { timeout: 20_000 },
      );

      await worker.crash();
      // A new container: the workspace disks are neither mounted nor on the volume any more.
      unmountDisksBelow(dataDir);
      for (const dir of ['workspaces', 'disks']) rmSync(path.join(dataDir, dir), { recursive: true, force: true });
      worker = await startWorkerProcess(queue, { DATA_DIR: dataDir });

      const second = await run('/tool read_file {"path":"notes/keep.txt"}');
      const restored = second.find(
        (f) => f.data.name === 'SYSTEM_STATUS' && (f.data.data as { status: string }).status === 'sandbox_restored',
      );
      expect(restored).toBeDefined();
      const result = JSON.parse(second.find((f) => f.data.type === 'TOOL_CALL_RESULT')!.data.content as string);
      expect(JSON.stringify(result)).toContain('survives restarts');
    } finally {
      await worker.stop();
      await api.close();
      unmountDisksBelow(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
