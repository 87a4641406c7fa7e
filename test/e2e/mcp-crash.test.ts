import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess } from '../support/api-process.ts';
import { eventually } from '../support/eventually.ts';
import { call, exchange } from '../support/http.ts';
import { directives, results, retries } from '../support/mcp-runs.ts';
import { startEverythingServer, startRecordingProxy } from '../support/mcp-servers.ts';
import { terminate } from '../support/processes.ts';
import { expectOneTerminal, readTaskStream, startBackgroundRun, type Caller } from '../support/runs.ts';
import { createTenant } from '../support/tenant.ts';
import { startWorkerProcess } from '../support/worker-process.ts';

/**
 * Tool-server calls across crashes. A call whose worker is killed mid-call (on a private api + worker
 * pair) is run again, at least once, once its heartbeats stop, and the run completes (the shared
 * stack's processes are not touched). A call whose server is killed mid-call
 * is retried, then ends in an error the model reads.
 */
describe('MCP tool calls when a process dies mid-call', () => {
  let server: { url: string; child: ChildProcess };
  let fragile: { url: string; child: ChildProcess };
  let recorder: Awaited<ReturnType<typeof startRecordingProxy>>;
  let fragileRecorder: Awaited<ReturnType<typeof startRecordingProxy>>;
  let member: Caller;

  beforeAll(async () => {
    [server, fragile] = await Promise.all([
      startEverythingServer('streamableHttp'),
      startEverythingServer('streamableHttp'),
    ]);
    recorder = await startRecordingProxy(server.url);
    fragileRecorder = await startRecordingProxy(fragile.url);
    const tenant = await createTenant({ model: 'instant' });
    const ownerToken = await exchange(tenant.keys.owner);
    member = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
    const settings = {
      model: 'instant',
      tool_servers: [
        { name: 'everything', url: recorder.url, allowed_tools: ['trigger-long-running-operation'] },
        { name: 'fragile', url: fragileRecorder.url, allowed_tools: ['trigger-long-running-operation'] },
      ],
    };
    const applied = await call('POST', '/api/admin/apply', {
      token: ownerToken,
      body: { agents: [{ name: 'agent', settings }] },
    });
    expect(applied.status, await applied.clone().text()).toBe(200);
  });

  afterAll(async () => {
    recorder?.server.close();
    fragileRecorder?.server.close();
    if (server) await terminate(server.child);
    if (fragile) await terminate(fragile.child);
  });

  it('the server killed: the call is retried, then the model reads a clear error and the run completes', async () => {
    const { taskId } = await startBackgroundRun(
      member,
      directives(['fragile__trigger-long-running-operation', { duration: 30, steps: 30 }]),
    );
    await eventually('the call to reach the server', () => expect(fragileRecorder.methods).toContain('tools/call'));
    fragile.child.kill('SIGKILL');
    const frames = await readTaskStream(member, taskId);
    expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
    expect(results(frames)).toEqual([
      {
        error: {
          code: 'TOOL_SERVER_UNAVAILABLE',
          message: expect.stringMatching(/^tool server fragile could not be reached \(attempt 3 of 3\)/),
        },
      },
    ]);
    expect(retries(frames)).toEqual([2, 3]);
  });

  it('the worker killed: the call runs again, at least once, and the run completes', async () => {
    const queue = `mcp-crash-${randomBytes(3).toString('hex')}`;
    const workerEnv = { OUTBOUND_PRIVATE_TARGETS: 'allow' };
    const api = await startApiProcess({ TEMPORAL_TASK_QUEUE: queue });
    let worker = await startWorkerProcess(queue, workerEnv);
    try {
      const res = await fetch(`${api.url}/api/run`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${member.token}`,
          'X-Agent-Id': member.agentId,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({
          ...directives(['everything__trigger-long-running-operation', { duration: 3, steps: 3 }]),
          stream: false,
        }),
      });
      expect(res.status).toBe(202);
      const { task_id: taskId } = (await res.json()) as { task_id: string };
      const calls = () => recorder.methods.filter((m) => m === 'tools/call').length;
      await eventually('the call to reach the server', () => expect(calls()).toBe(1));
      await worker.crash();
      worker = await startWorkerProcess(queue, workerEnv);

      const frames = await readTaskStream(member, taskId);
      expect(expectOneTerminal(frames).type).toBe('RUN_FINISHED');
      expect(results(frames)).toEqual([{ text: 'Long running operation completed. Duration: 3 seconds, Steps: 3.' }]);
      expect(retries(frames)).toEqual([2]);
      expect(calls()).toBe(2); // the server saw the call twice: at least once, not exactly once
    } finally {
      await worker.stop();
      await api.close();
    }
  }, 120_000);
});
