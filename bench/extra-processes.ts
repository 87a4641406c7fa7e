import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { stopChild, waitUntil } from '../src/processes/lifecycle.ts';
import { unmountDisksBelow } from '../src/sandbox/workspace-disk.ts';
import { serviceEnv } from '../src/processes/service-args.ts';
import { serviceArgs, type Stack } from '../test/support/stack.ts';
import { BENCH_PROCESSES } from './build.ts';
import { freeListenPort } from '../test/support/ports.ts';

export interface ExtraProcess {
  pid: number;
  /** The api's base URL (apis only). */
  url?: string;
  stop(): Promise<void>;
}

function spawnMain(name: 'api' | 'worker', env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, serviceArgs(name, BENCH_PROCESSES), {
    env: { ...env, ...serviceEnv(name) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

/** Shares the stack's database, Temporal, task queue and JWT secret, as a replica on another machine would. */
function replicaEnv(stack: Stack, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
    JWT_SECRET: stack.jwtSecret,
    ...extra,
  };
}

/** One more api process beside the stack's, ready when /healthz answers. */
export async function startExtraApi(stack: Stack, env: Record<string, string>): Promise<ExtraProcess> {
  const port = await freeListenPort();
  const child = spawnMain('api', replicaEnv(stack, { ...env, API_PORT: String(port) }));
  child.stdout!.resume();
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(
    async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.ok === true,
    90_000,
    'extra api',
  ).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  return { pid: child.pid!, url, stop: () => stopChild(child) };
}

/** One more worker process, a sandbox host of its own (own DATA_DIR), ready when it logs "worker running". */
export async function startExtraWorker(stack: Stack, env: Record<string, string>): Promise<ExtraProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ars-bench-worker-'));
  // At info level: its "worker running" line says it is ready (its log goes nowhere else).
  const child = spawnMain('worker', replicaEnv(stack, { ...env, DATA_DIR: dataDir, LOG_LEVEL: 'info' }));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('extra worker did not start within 90 s'));
    }, 90_000);
    child.once('exit', (code) => reject(new Error(`extra worker exited with code ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"worker running"')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return {
    pid: child.pid!,
    async stop() {
      await stopChild(child);
      unmountDisksBelow(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
