import { createServer, type AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, exchange, readSse, userMessage, withoutHeartbeats, type SseFrame } from '../support/http.ts';
import { answer, expectOneTerminal, expectReplays, readTaskStream, startBackgroundRun, waitForPending, waitForStatus, type Caller } from '../support/runs.ts';
import { hostProcesses, uniqueTag } from '../support/sandbox.ts';
import { createTenant, testDb } from '../support/tenant.ts';

/**
 * The sandbox tools inside real runs (api → Temporal → worker process), driven
 * by the offline model's `/tool` directives.
 */
let who: Caller;

beforeAll(async () => {
  const tenant = await createTenant({ sandbox: { run_command_approval: false } });
  who = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
});

async function streamedRun(content: string, caller = who): Promise<SseFrame[]> {
  const res = await call('POST', '/api/run', { token: caller.token, agentId: caller.agentId, body: userMessage(content) });
  expect(res.status).toBe(200);
  return withoutHeartbeats(await readSse(res));
}

/** The parsed TOOL_CALL_RESULT contents, in order. */
const toolResults = (frames: SseFrame[]) =>
  frames.filter((f) => f.data.type === 'TOOL_CALL_RESULT').map((f) => JSON.parse(f.data.content as string) as Record<string, unknown>);

describe('sandbox tools in runs', () => {
  it('a run writes and runs a file; a later run of another task still has it', async () => {
    const first = await streamedRun(
      [
        '/tool write_file {"path":"hello.py","content":"print(\'hi from the sandbox\')\\n"}',
        '/tool run_command {"command":"python3 hello.py; env | grep -c -E \'DATABASE_URL|JWT_SECRET\'"}',
      ].join('\n'),
    );
    expect(first.at(-1)?.data.type, JSON.stringify(first.at(-1))).toBe('RUN_FINISHED');
    const status = first.filter((f) => f.data.type === 'CUSTOM' && f.data.name === 'SYSTEM_STATUS').map((f) => f.data.data);
    expect(status).toContainEqual({ status: 'sandbox_started', workspace: '/workspace' });
    const [written, ran] = toolResults(first);
    expect(JSON.stringify(written)).toContain('hello.py');
    expect(JSON.stringify(ran)).toContain('hi from the sandbox\\n0\\n');

    const second = await streamedRun('/tool run_command {"command":"cat hello.py && ls -a"}');
    expect(JSON.stringify(toolResults(second))).toContain("print('hi from the sandbox')");
    expect(second.some((f) => f.data.type === 'CUSTOM' && f.data.name === 'SYSTEM_STATUS' && (f.data.data as { status: string }).status === 'sandbox_started')).toBe(false);
  });

  it('work in the workspace is snapshotted before the run waits for a person (its host may be gone by the answer)', async () => {
    const { taskId, runId } = await startBackgroundRun(who, userMessage('/tool write_file {"path":"before-asking.txt","content":"kept"}\n/tool request_user_input {"input_type":"text","prompt":"Go on?"}'));
    const pending = await waitForPending(who, taskId);
    const snapshots = await testDb().sandboxSnapshot.findMany({ where: { runId }, select: { id: true } });
    expect(snapshots).toHaveLength(1);
    const ok = await answer(who, taskId, { request_id: pending.request_id, run_id: runId, input_type: 'text', value: 'yes' });
    expect(ok.status).toBe(200);
    expect(expectOneTerminal(await readTaskStream(who, taskId)).type).toBe('RUN_FINISHED');
    await expectReplays(runId, 'sandbox-snapshot-before-waiting');
  });

  it('cancelling the run kills its command', async () => {
    const tag = uniqueTag();
    const { taskId } = await startBackgroundRun(who, userMessage(`/tool run_command {"command":"sleep 100.${tag}","timeout_seconds":120}`));
    const deadline = Date.now() + 20_000;
    while (hostProcesses(`sleep 100.${tag}`).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(hostProcesses(`sleep 100.${tag}`).length).toBeGreaterThan(0);
    const res = await call('POST', `/api/tasks/${taskId}/cancel`, { token: who.token, agentId: who.agentId, body: {} });
    expect(res.status).toBe(200);
    await waitForStatus(who, taskId, 'cancelled', 45_000);
    const gone = Date.now() + 45_000;
    while (hostProcesses(`sleep 100.${tag}`).length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 200));
    expect(hostProcesses(`sleep 100.${tag}`)).toEqual([]);
  }, 120_000);

  it('run_command waits for an owner\'s approval by default', async () => {
    const tenant = await createTenant();
    const member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
    const owner = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
    const { taskId, runId } = await startBackgroundRun(member, userMessage('/tool run_command {"command":"echo approved-and-ran"}'));
    const pending = await waitForPending(member, taskId);
    expect(pending).toMatchObject({ input_type: 'action_approval', action: { tool_name: 'run_command', sensitive: true } });
    expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('awaiting_approval');
    const ok = await answer(owner, taskId, { request_id: pending.request_id, run_id: runId, input_type: 'action_approval', approved: true });
    expect(ok.status).toBe(200);
    const frames = await readTaskStream(member, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    expect(toolResults(frames)).toEqual([expect.objectContaining({ exit_code: 0, stdout: 'approved-and-ran\n' })]);
  }, 60_000);

  it('the network is off unless the agent allows it', async () => {
    const server = createServer((socket) => socket.end('pong-from-host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const probe = `/tool run_command {"command":"exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3"}`;
    try {
      const offline = toolResults(await streamedRun(probe));
      expect(offline).toEqual([expect.objectContaining({ exit_code: 1, stdout: '' })]);
      expect(offline[0]!.stderr).toContain('Connection refused');

      const tenant = await createTenant({ sandbox: { run_command_approval: false, network: true } });
      const networked = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
      expect(toolResults(await streamedRun(probe, networked))).toEqual([expect.objectContaining({ exit_code: 0, stdout: 'pong-from-host\n' })]);
    } finally {
      server.close();
    }
  }, 60_000);
});
