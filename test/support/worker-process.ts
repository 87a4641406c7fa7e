import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { inject } from 'vitest';
import { serviceEnv, tsxServiceArgs } from '../../src/processes/service-args.ts';
import { stopChild } from '../../src/processes/lifecycle.ts';
import { terminate } from './processes.ts';

export interface WorkerProcess {
  pid: number;
  /** Every line the process wrote to stdout so far (its JSON log). */
  stdout: string[];
  /** Every line it wrote to stderr so far (the Temporal SDK's own log), also passed on to ours. */
  stderr: string[];
  /** SIGKILL: a crash, with no chance to finish anything. */
  crash(): Promise<void>;
  /** SIGTERM, as a deploy sends it; resolves with the exit code once the worker has shut down. */
  terminate(): Promise<number | null>;
  stop(): Promise<void>;
}

/** A worker process started exactly as the start command starts one, on `taskQueue`. */
export async function startWorkerProcess(taskQueue: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, tsxServiceArgs('worker'), {
    env: {
      ...process.env,
      ...serviceEnv('worker'),
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      LOG_LEVEL: 'info',
      MODEL_PROVIDER: 'offline',
      WORKER_METRICS_PORT: '0', // a test that scrapes the worker passes a free port
      WORKFLOW_BUNDLE: inject('workflowBundle'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stderr!.pipe(process.stderr);
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('worker did not start within 90 s')), 90_000);
    child.once('exit', (code) => reject(new Error(`worker exited with code ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdout.push(line);
      if (line.includes('"worker running"')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return {
    pid: child.pid!,
    stdout,
    stderr,
    crash: () => stopChild(child, 'SIGKILL'),
    terminate: () => terminate(child),
    stop: () => stopChild(child),
  };
}
