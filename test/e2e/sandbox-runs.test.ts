import { createServer, type AddressInfo, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { call, exchange, readSse, userMessage, withoutHeartbeats, type SseFrame } from '../support/http.ts';
import {
  answer,
  expectOneTerminal,
  expectReplays,
  readTaskStream,
  startBackgroundRun,
  waitForPending,
  waitForStatus,
  type Caller,
} from '../support/runs.ts';
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
  const res = await call('POST', '/api/run', {
    token: caller.token,
    agentId: caller.agentId,
    body: userMessage(content),
  });
  expect(res.status).toBe(200);
  return withoutHeartbeats(await readSse(res));
}

/** The parsed TOOL_CALL_RESULT contents, in order. */
const toolResults = (frames: SseFrame[]) =>
  frames
    .filter((f) => f.data.type === 'TOOL_CALL_RESULT')
    .map((f) => JSON.parse(f.data.content as string) as Record<string, unknown>);

describe('sandbox tools in runs', () => {
  it('a run writes and runs a file; a later run of another task still has it', async () => {
    const first = await streamedRun(
      [
        '/tool write_file {"path":"hello.py","content":"print(\'hi from the sandbox\')\\n"}',
        '/tool run_command {"command":"python3 hello.py; env | grep -c -E \'DATABASE_URL|JWT_SECRET\'"}',
      ].join('\n'),
    );
    expect(first.at(-1)?.data.type, JSON.stringify(first.at(-1))).toBe('RUN_FINISHED');
    const status = first
      .filter((f) => f.data.type === 'CUSTOM' && f.data.name === 'SYSTEM_STATUS')
      .map((f) => f.data.data);
    expect(status).toContainEqual({ status: 'sandbox_started', workspace: '/workspace' });
    const [written, ran] = toolResults(first);
    expect(JSON.stringify(written)).toContain('hello.py');
    expect(JSON.stringify(ran)).toContain('hi from the sandbox\\n0\\n');

    const second = await streamedRun('/tool run_command {"command":"cat hello.py && ls -a"}');
    expect(JSON.stringify(toolResults(second))).toContain("print('hi from the sandbox')");
    expect(
      second.some(
        (f) =>
          f.data.type === 'CUSTOM' &&
          f.data.name === 'SYSTEM_STATUS' &&
          (f.data.data as { status: string }).status === 'sandbox_started',
      ),
    ).toBe(false);
  });

  it('work in the workspace is snapshotted before the run waits for a person (its host may be gone by the answer)', async () => {
    const { taskId, runId } = await startBackgroundRun(
      who,
      userMessage(
        '/tool write_file {"path":"before-asking.txt","content":"kept"}\n/tool request_user_input {"input_type":"text","prompt":"Go on?"}',
      ),
    );
    const pending = await waitForPending(who, taskId);
    const snapshots = await testDb().sandboxSnapshot.findMany({ where: { runId }, select: { id: true } });
    expect(snapshots).toHaveLength(1);
    const ok = await answer(who, taskId, {
      request_id: pending.request_id,
      run_id: runId,
      input_type: 'text',
      value: 'yes',
    });
    expect(ok.status).toBe(200);
    expect(expectOneTerminal(await readTaskStream(who, taskId)).type).toBe('RUN_FINISHED');
    await expectReplays(runId, 'sandbox-snapshot-before-waiting');
  });

  it('cancelling the run kills its command', async () => {
    const tag = uniqueTag();
    const { taskId } = await startBackgroundRun(
      who,
      userMessage(`/tool run_command {"command":"sleep 100.${tag}","timeout_seconds":120}`),
    );
    await eventually('the command to run', () => expect(hostProcesses(`sleep 100.${tag}`).length).toBeGreaterThan(0), {
      timeout: 20_000,
      interval: 100,
    });
    const res = await call('POST', `/api/tasks/${taskId}/cancel`, { token: who.token, agentId: who.agentId, body: {} });
    expect(res.status).toBe(200);
    await waitForStatus(who, taskId, 'cancelled', 45_000);
    await eventually('the command to be killed', () => expect(hostProcesses(`sleep 100.${tag}`)).toEqual([]), {
      timeout: 45_000,
    });
  }, 120_000);

  it("run_command waits for an owner's approval by default", async () => {
    const tenant = await createTenant();
    const member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
    const owner = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
    const { taskId, runId } = await startBackgroundRun(
      member,
      userMessage('/tool run_command {"command":"echo approved-and-ran"}'),
    );
    const pending = await waitForPending(member, taskId);
    expect(pending).toMatchObject({
      input_type: 'action_approval',
      action: { tool_name: 'run_command', sensitive: true },
    });
    expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('awaiting_approval');
    const ok = await answer(owner, taskId, {
      request_id: pending.request_id,
      run_id: runId,
      input_type: 'action_approval',
      approved: true,
    });
    expect(ok.status).toBe(200);
    const frames = await readTaskStream(member, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    expect(toolResults(frames)).toEqual([expect.objectContaining({ exit_code: 0, stdout: 'approved-and-ran\n' })]);
  }, 60_000);

  it("a member's dotfiles in the shared workspace do not ride along with a command an owner approves", async () => {
    const tenant = await createTenant();
    const member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
    const owner = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId };
    // write_file needs no approval; HOME (/workspace/.home) is in the workspace every run shares.
    const plant = (file: string) =>
      `/tool write_file {"path":".home/${file}","content":"echo PAYLOAD-RAN; touch /workspace/pwned\\n"}`;
    const { taskId, runId } = await startBackgroundRun(
      member,
      userMessage(
        [plant('.bashrc'), plant('.profile'), plant('.bash_profile'), '/tool run_command {"command":"ls"}'].join('\n'),
      ),
    );
    const pending = await waitForPending(member, taskId);
    // The approver is shown the command, and exactly that runs.
    expect(pending).toMatchObject({
      input_type: 'action_approval',
      action: { tool_name: 'run_command', arguments: { command: 'ls' } },
    });
    const ok = await answer(owner, taskId, {
      request_id: pending.request_id,
      run_id: runId,
      input_type: 'action_approval',
      approved: true,
    });
    expect(ok.status).toBe(200);
    const frames = await readTaskStream(member, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    const ran = toolResults(frames).at(-1)!;
    expect(ran).toMatchObject({ exit_code: 0 });
    expect(ran.stdout).not.toContain('PAYLOAD-RAN');
    expect(ran.stdout).not.toContain('pwned');
  }, 60_000);

  it("the network is off unless the agent allows it, and then it is its own: never the host's loopback or addresses", async () => {
    const servers = await Promise.all(['127.0.0.1', '0.0.0.0'].map(listen));
    const [loopbackPort, anyPort] = servers.map((s) => (s.address() as AddressInfo).port);
    const hostAddress =
      Object.values(networkInterfaces())
        .flatMap((l) => l ?? [])
        .find((a) => a.family === 'IPv4' && !a.internal)?.address ?? '127.0.0.1';
    const probe = (host: string, port: number) =>
      `/tool run_command {"command":"exec 3<>/dev/tcp/${host}/${port} && cat <&3"}`;
    try {
      const offline = toolResults(await streamedRun(probe('127.0.0.1', loopbackPort!)));
      expect(offline).toEqual([expect.objectContaining({ exit_code: 1, stdout: '' })]);
      expect(offline[0]!.stderr).toContain('Connection refused');

      const tenant = await createTenant({ sandbox: { run_command_approval: false, network: true } });
      const networked = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
      // 127.0.0.1 is the sandbox's own loopback; 10.0.2.2 the host's as slirp4netns names it; then the host's own address.
      const results = toolResults(
        await streamedRun(
          [probe('127.0.0.1', loopbackPort!), probe('10.0.2.2', loopbackPort!), probe(hostAddress, anyPort!)].join(
            '\n',
          ),
          networked,
        ),
      );
      expect(results).toHaveLength(3);
      for (const r of results) expect(r).toMatchObject({ exit_code: 1, stdout: '' });
      expect(results.map((r) => /Connection refused|No route to host/.exec(r.stderr as string)?.[0])).toEqual([
        'Connection refused',
        'No route to host',
        'No route to host',
      ]);
      // It is a network all the same: an interface of its own and a resolver.
      const [shown] = toolResults(
        await streamedRun(
          '/tool run_command {"command":"tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d \' \' | sort; cat /etc/resolv.conf"}',
          networked,
        ),
      );
      expect(shown).toMatchObject({ exit_code: 0, stdout: 'lo\ntap0\nnameserver 10.0.2.3\n' });
    } finally {
      for (const s of servers) s.close();
    }
  }, 60_000);
});

function listen(host: string): Promise<Server> {
  const server = createServer((socket) => socket.on('error', () => {}).end('pong-from-host\n'));
  return new Promise((resolve) => server.listen(0, host, () => resolve(server)));
}
