import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ensureTemporalBinary } from '../../src/embedded/temporal-dev-server.ts';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { expect, inject } from 'vitest';
import { eventually } from './eventually.ts';
import { politeCall as call, readSse, withoutHeartbeats, type SseFrame } from './http.ts';

export interface Caller {
  token: string;
  agentId: string;
}

/** Starts a background run and returns its ids. */
export async function startBackgroundRun(
  who: Caller,
  body: Record<string, unknown>,
): Promise<{ taskId: string; runId: string }> {
  const res = await call('POST', '/api/run', {
    token: who.token,
    agentId: who.agentId,
    body: { ...body, stream: false },
  });
  expect(res.status, await res.clone().text()).toBe(202);
  const meta = (await res.json()) as { id: string; task_id: string };
  return { taskId: meta.task_id, runId: meta.id };
}

export interface PendingRequestBody {
  request_id: string;
  run_id: string;
  input_type: string;
  prompt: string;
  [key: string]: unknown;
}

/** Polls GET pending-input until the run asks (or fails the test after `timeoutMs`). */
export function waitForPending(who: Caller, taskId: string, timeoutMs = 20_000): Promise<PendingRequestBody> {
  return eventually(
    `task ${taskId} to ask for input`,
    async () => {
      const res = await call('GET', `/api/tasks/${taskId}/pending-input`, { token: who.token, agentId: who.agentId });
      const body = (await res.json()) as { pending: boolean; request?: PendingRequestBody };
      expect(body.pending).toBe(true);
      return body.request!;
    },
    { timeout: timeoutMs },
  );
}

export function answer(who: Caller, taskId: string, body: Record<string, unknown>): Promise<Response> {
  return call('POST', `/api/tasks/${taskId}/input`, { token: who.token, agentId: who.agentId, body });
}

/** Reads the task's stream from its start to the terminal event; no heartbeats. */
export async function readTaskStream(who: Caller, taskId: string): Promise<SseFrame[]> {
  const res = await call('GET', `/api/tasks/${taskId}/stream`, { token: who.token, agentId: who.agentId });
  expect(res.status).toBe(200);
  return withoutHeartbeats(await readSse(res));
}

export async function runStatus(
  who: Caller,
  taskId: string,
): Promise<{ active: boolean; run: { id: string; status: string } | null }> {
  const res = await call('GET', `/api/run/${taskId}/status`, { token: who.token, agentId: who.agentId });
  return (await res.json()) as { active: boolean; run: { id: string; status: string } | null };
}

export async function waitForStatus(who: Caller, taskId: string, status: string, timeoutMs = 20_000): Promise<void> {
  await eventually(
    `the run of task ${taskId} to be ${status}`,
    async () => expect((await runStatus(who, taskId)).run?.status).toBe(status),
    { timeout: timeoutMs },
  );
}

export const types = (frames: SseFrame[]) =>
  frames.map((f) => (f.data.type === 'CUSTOM' ? `CUSTOM:${f.data.name}` : f.data.type));

/** Exactly one terminal event, and it is the last. */
export function expectOneTerminal(frames: SseFrame[]): SseFrame['data'] {
  const terminal = frames.filter((f) => f.data.type === 'RUN_FINISHED' || f.data.type === 'RUN_ERROR');
  expect(terminal).toHaveLength(1);
  expect(frames.at(-1)).toBe(terminal[0]);
  return terminal[0]!.data;
}

let connection: Connection | undefined;
let runtimeInstalled = false;

/** A client of the test Temporal server, on one connection per test file (closed by close-clients.ts). */
export async function temporalClient(): Promise<Client> {
  connection ??= await Connection.connect({ address: inject('temporalAddress') });
  return new Client({ connection });
}

export async function closeTemporalConnection(): Promise<void> {
  await connection?.close();
  connection = undefined;
}

/** The Temporal runtime of in-test workers, at WARN: replay workers log every state change at INFO. Call before any worker. */
export function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger('WARN') });
  runtimeInstalled = true;
}

export const historiesDir = path.join(import.meta.dirname, '..', 'histories');

/**
 * Replays the run's recorded Temporal history against the current workflow code: fails on nondeterminism.
 * With SAVE_HISTORIES=1 a named history is also saved to test/histories, where test/replay.test.ts
 * keeps replaying it against every later version of the workflow.
 */
export async function expectReplays(runId: string, name?: string): Promise<void> {
  installQuietRuntime();
  const history = await (await temporalClient()).workflow.getHandle(runId).fetchHistory();
  if (name && process.env.SAVE_HISTORIES === '1') {
    mkdirSync(historiesDir, { recursive: true });
    // The CLI writes the standard JSON history format (the SDK's own converter trips over two protobufjs copies).
    const json = execFileSync(ensureTemporalBinary(), [
      'workflow',
      'show',
      '--workflow-id',
      runId,
      '--address',
      inject('temporalAddress'),
      '--output',
      'json',
    ]);
    writeFileSync(path.join(historiesDir, `${name}.json`), json); // runs of today's code; older paths live in subfolders (test/replay.test.ts)
  }
  await Worker.runReplayHistory({ workflowBundle: todaysWorkflowBundle() }, history, runId);
}

/** Today's workflow code, bundled once by test/global-setup.ts. */
export function todaysWorkflowBundle(): { codePath: string } {
  return { codePath: inject('workflowBundle') };
}
