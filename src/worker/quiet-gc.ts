import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

/**
 * Runs in every thread of the worker process (thread-preload.ts). A worker whose runs all wait allocates nothing, so V8 never collects again, and the process keeps the heap its last
 * burst of work grew (10,000 runs that began to wait: 754 MiB instead of 337). Each thread checks every
 * WORKER_QUIET_GC_MS whether it was busy less than 2% of that time with a heap 20% (and 8 MiB) larger than after its
 * last such collection; then it collects with the GC that also shrinks the heap and hands the pages back.
 */
const intervalMs = Number(process.env.WORKER_QUIET_GC_MS ?? 5_000);
const gc = (globalThis as { gc?: (options: { type: 'major'; flavor: 'last-resort' }) => void }).gc;

if (gc && Number.isInteger(intervalMs) && intervalMs > 0) {
  let last = performance.eventLoopUtilization();
  let heapAfterLast = getHeapStatistics().total_heap_size;
  setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    // The heap's size, not what is in use: V8 may have collected the garbage already and kept the heap it grew.
    if (busy >= 0.02 || getHeapStatistics().total_heap_size < heapAfterLast * 1.2 + 8 * 2 ** 20) return;
    gc({ type: 'major', flavor: 'last-resort' });
    heapAfterLast = getHeapStatistics().total_heap_size;
    // The last collection stays on the thread's performance timeline, where a profiler (or a test) finds it.
    performance.clearMarks('ars:quiet-gc');
    performance.mark('ars:quiet-gc', { detail: { heapAfter: heapAfterLast } });
  }, intervalMs).unref();
}
