import { beforeAll, describe, expect, it } from 'vitest';
import { call, exchange, readSse, userMessage, withoutHeartbeats, type SseFrame } from '../support/http.ts';
import { startBackgroundRun, waitForStatus, type Caller } from '../support/runs.ts';
import { hostProcesses, uniqueTag } from '../support/sandbox.ts';
import { createTenant } from '../support/tenant.ts';

/**
 * The sandbox tools inside real runs (api → Temporal → worker process), driven
 * by the offline model's `/tool` directives.
 */
let who: Caller;

beforeAll(async () => {
  const tenant = await createTenant();
  who = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
});

async function streamedRun(content: string): Promise<SseFrame[]> {
  const res = await call('POST', '/api/run', { token: who.token, agentId: who.agentId, body: userMessage(content) });
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
});
