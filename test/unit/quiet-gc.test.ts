import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tsxServiceArgs } from '../../src/processes/service-args.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'ars-quiet-gc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A worker thread (as the SDK's workflow thread is: a file, started with the process's flags) that leaves ~100 MiB
// of garbage, then waits as a worker whose runs all wait: it allocates nothing more.
const thread = path.join(dir, 'thread.cjs');
writeFileSync(
  thread,
  `const { getHeapStatistics } = require('node:v8');
   const { parentPort } = require('node:worker_threads');
   const { performance } = require('node:perf_hooks');
   let garbage = [];
   for (let i = 0; i < 1e6; i++) garbage.push({ i, text: 'x' + i });
   garbage = null;
   const total = () => getHeapStatistics().total_heap_size;
   const before = total();
   const collections = () => performance.getEntriesByName('ars:quiet-gc', 'mark').length;
   setTimeout(() => parentPort.postMessage({ before, after: total(), collected: collections() > 0 }), 3000);`,
);
const main = path.join(dir, 'main.cjs');
writeFileSync(
  main,
  `const { Worker } = require('node:worker_threads');
   new Worker(${JSON.stringify(thread)}).on('message', (m) => { console.log(JSON.stringify(m)); process.exit(0); });`,
);

/**
 * The thread's heap (bytes) right after its burst and 3 s later, and whether the collector ran (its mark), in a
 * process started with the worker's flags.
 */
async function heapOfQuietThread(quietGcMs: string) {
  // The worker's own flags (tsx, --expose-gc, the quiet-gc preload) with this script instead of src/main/worker.ts.
  const args = [...tsxServiceArgs('worker').slice(0, -1), main];
  const { stdout } = await promisify(execFile)(process.execPath, args, {
    env: { ...process.env, WORKER_QUIET_GC_MS: quietGcMs },
  });
  return JSON.parse(stdout) as { before: number; after: number; collected: boolean };
}

describe("the worker's quiet-time collection (src/worker/quiet-gc.ts)", () => {
  it('hands back the heap a workflow thread grew once the thread goes quiet', async () => {
    const { before, after, collected } = await heapOfQuietThread('500');
    expect(before).toBeGreaterThan(80 * 2 ** 20);
    expect(collected).toBe(true);
    expect(after).toBeLessThan(before * 0.7);
  });

  // V8 alone may or may not shrink this thread's heap in the meantime (its memory reducer runs only after a
  // full GC of the burst), so the mark is what tells the two apart.
  it('WORKER_QUIET_GC_MS=0 turns it off', async () => {
    expect((await heapOfQuietThread('0')).collected).toBe(false);
  });
});
