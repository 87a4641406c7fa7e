import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { exchange } from '../support/http.ts';
import { answer, temporalClient, waitForPending, waitForStatus, type Caller } from '../support/runs.ts';
import { closeTestDb, createTenant } from '../support/tenant.ts';
import { startWorkerProcess } from '../support/worker-process.ts';

/**
 * Worker Versioning on the real stack: each worker polls as a pinned Worker Deployment Version
 * whose build id is its workflow bundle's hash. Build B is today's bundle with a comment added
 * (other code, so another build id). A run waiting for a human when B arrives stays on A; new
 * runs go to B; and a worker restarted on B alone still finishes A's runs (src/worker/older-builds.ts).
 */
let scratch: string;
let bundleB: string;
let who: Caller;
const processes: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'ars-versions-'));
  bundleB = path.join(scratch, 'workflow-bundle-b.js');
  // Before the inline source map, which the SDK reads to the end of the file.
  const bundleA = readFileSync(inject('workflowBundle'), 'utf8');
  const sourceMap = bundleA.lastIndexOf('//# sourceMappingURL=');
  writeFileSync(bundleB, `${bundleA.slice(0, sourceMap)}// build B\n${bundleA.slice(sourceMap)}`);
  const tenant = await createTenant();
  who = { token: await exchange(tenant.keys.member), agentId: tenant.agentId };
}, 60_000);

afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.close()));
});

afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await closeTestDb();
});

const askForInput = {
  messages: [
    { role: 'user', content: `/tool request_user_input ${JSON.stringify({ input_type: 'text', prompt: 'Name?' })}` },
  ],
};

/** A private api and workers on a queue (and so a deployment) of the test's own. */
async function onOwnQueue() {
  const queue = `versions-${randomBytes(3).toString('hex')}`;
  const api = await startApiProcess({ TEMPORAL_TASK_QUEUE: queue });
  processes.push({ close: () => api.close() });
  const worker = async (env: Record<string, string>) => {
    const proc = await startWorkerProcess(queue, env);
    processes.push({ close: () => proc.stop() });
    const running = JSON.parse(proc.stdout.find((l) => l.includes('"worker running"'))!) as { buildId: string };
    return Object.assign(proc, { buildId: running.buildId });
  };
  return { queue, api, worker };
}

async function startRun(api: ApiProcess, body: Record<string, unknown>): Promise<{ taskId: string; runId: string }> {
  const res = await fetch(`${api.url}/api/run`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${who.token}`, 'X-Agent-Id': who.agentId, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...body, stream: false }),
  });
  expect(res.status, await res.clone().text()).toBe(202);
  const meta = (await res.json()) as { id: string; task_id: string };
  return { taskId: meta.task_id, runId: meta.id };
}

async function answerAndFinish(taskId: string): Promise<void> {
  const pending = await waitForPending(who, taskId);
  const ok = await answer(who, taskId, {
    request_id: pending.request_id,
    run_id: pending.run_id,
    input_type: 'text',
    value: 'Ada',
  });
  expect(ok.status, await ok.clone().text()).toBe(200);
  await waitForStatus(who, taskId, 'completed', 60_000);
}

/** The build ids of the workers that completed the run's workflow tasks, in order. */
async function buildsThatRan(runId: string): Promise<string[]> {
  const history = await (await temporalClient()).workflow.getHandle(runId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const completed = e.workflowTaskCompletedEventAttributes;
    return completed ? [completed.deploymentVersion?.buildId ?? '(unversioned)'] : [];
  });
}

async function currentBuild(deploymentName: string): Promise<string | undefined> {
  const { workflowService } = (await temporalClient()).connection;
  const { workerDeploymentInfo } = await workflowService.describeWorkerDeployment({
    namespace: 'default',
    deploymentName,
  });
  return workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? undefined;
}

/** Server-side propagation and visibility take a moment; a drain checks every 10 s. */
const soon = { timeout: 30_000, interval: 200 };

describe('worker versioning', () => {
  it('keeps a waiting run on the build it started on while new runs go to the newer build', async () => {
    const { queue, api, worker } = await onOwnQueue();
    const a = await worker({ DATA_DIR: path.join(scratch, 'host-a') });
    await vi.waitFor(async () => expect(await currentBuild(queue)).toBe(a.buildId), soon);
    const waiting = await startRun(api, askForInput);
    await waitForPending(who, waiting.taskId);

    const b = await worker({ DATA_DIR: path.join(scratch, 'host-b'), WORKFLOW_BUNDLE: bundleB });
    expect(b.buildId).not.toBe(a.buildId);
    await vi.waitFor(async () => expect(await currentBuild(queue)).toBe(b.buildId), soon);

    const fresh = await startRun(api, { messages: [{ role: 'user', content: 'Hello!' }] });
    await waitForStatus(who, fresh.taskId, 'completed', 60_000);
    expect(new Set(await buildsThatRan(fresh.runId))).toEqual(new Set([b.buildId]));

    await answerAndFinish(waiting.taskId);
    const ran = await buildsThatRan(waiting.runId);
    expect(ran.length).toBeGreaterThan(1); // before and after the answer
    expect(new Set(ran)).toEqual(new Set([a.buildId]));
  }, 240_000);

  it('a worker restarted with new workflow code also runs the old build until its pinned runs end', async () => {
    const { queue, api, worker } = await onOwnQueue();
    const dataDir = path.join(scratch, 'one-host');
    const a = await worker({ DATA_DIR: dataDir });
    await vi.waitFor(async () => expect(await currentBuild(queue)).toBe(a.buildId), soon);
    const waiting = await startRun(api, askForInput);
    await waitForPending(who, waiting.taskId);
    expect(await a.terminate()).toBe(0);

    const b = await worker({ DATA_DIR: dataDir, WORKFLOW_BUNDLE: bundleB });
    await vi.waitFor(
      () =>
        expect(b.stdout.filter((l) => l.includes('older worker version'))).toEqual([
          expect.stringContaining(a.buildId),
        ]),
      soon,
    );
    await vi.waitFor(async () => expect(await currentBuild(queue)).toBe(b.buildId), soon);

    await answerAndFinish(waiting.taskId);
    expect(new Set(await buildsThatRan(waiting.runId))).toEqual(new Set([a.buildId]));
    const keptBundle = path.join(dataDir, 'workflow-bundles', queue, `${a.buildId}.js`);
    await vi.waitFor(
      async () => {
        expect(b.stdout.some((l) => l.includes('older worker version drained'))).toBe(true);
        expect(existsSync(keptBundle)).toBe(false);
      },
      { timeout: 45_000, interval: 250 },
    );
  }, 240_000);
});
