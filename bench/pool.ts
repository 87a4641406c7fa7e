/**
 * Runs `total` jobs with at most `concurrency` in flight (a closed loop: a new one starts
 * as one ends). Returns every job's outcome and the wall time, for throughput figures.
 */
export async function inFlight<T>(
  total: number,
  concurrency: number,
  job: (i: number) => Promise<T>,
): Promise<{ results: PromiseSettledResult<T>[]; wallMs: number }> {
  const results: PromiseSettledResult<T>[] = [];
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < total) {
      const i = next++;
      results[i] = await job(i).then(
        (value) => ({ status: 'fulfilled', value }) as const,
        (reason: unknown) => ({ status: 'rejected', reason }) as const,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
  return { results, wallMs: performance.now() - started };
}

/** Runs per second over a wall time. */
export const rate = (count: number, wallMs: number) => (count * 1000) / wallMs;
