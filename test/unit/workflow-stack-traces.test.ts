import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tsxServiceArgs } from '../../src/processes/service-args.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'ars-stack-traces-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// What the SDK's workflow thread does at start-up (vm-shared.js): installs a promise hook, then runs promises.
const thread = path.join(dir, 'thread.cjs');
writeFileSync(
  thread,
  `const v8 = require('node:v8');
   const { parentPort } = require('node:worker_threads');
   let inits = 0;
   const stop = v8.promiseHooks.createHook({ init: () => { inits++; } });
   Promise.resolve().then(() => 1).then(() => { stop(); parentPort.postMessage({ inits }); });`,
);
const main = path.join(dir, 'main.cjs');
writeFileSync(
  main,
  `const { Worker } = require('node:worker_threads');
   const v8 = require('node:v8');
   let inits = 0;
   const stop = v8.promiseHooks.createHook({ init: () => { inits++; } });
   Promise.resolve().then(() => {
     stop();
     new Worker(${JSON.stringify(thread)}).on('message', (m) => { console.log(JSON.stringify({ thread: m.inits, main: inits })); process.exit(0); });
   });`,
);

/** Promises the hooks of a worker thread and of the main thread saw, in a process started with the worker's flags. */
async function hookedPromises(setting: string | undefined) {
  const args = [...tsxServiceArgs('worker').slice(0, -1), main];
  const env = { ...process.env, WORKER_WORKFLOW_STACK_TRACES: setting };
  if (setting === undefined) delete env.WORKER_WORKFLOW_STACK_TRACES;
  const { stdout } = await promisify(execFile)(process.execPath, args, { env });
  return JSON.parse(stdout) as { thread: number; main: number };
}

describe("the workflow threads' stack traces (src/worker/workflow-stack-traces.ts)", () => {
  it("are off by default: the hook the SDK installs in a worker thread sees no promise, the main thread's does", async () => {
    const seen = await hookedPromises(undefined);
    expect(seen.thread).toBe(0);
    expect(seen.main).toBeGreaterThan(0);
  });

  it('WORKER_WORKFLOW_STACK_TRACES=true leaves the hook as it is', async () => {
    expect((await hookedPromises('true')).thread).toBeGreaterThan(0);
  });
});
