/**
 * Runs `pass` every `intervalMs`, one pass at a time (a slow pass delays the next, never
 * overlaps it), in the background of an api process; with `now`, the first pass starts at once. `stop` ends the timer and waits for the
 * pass under way. A pass handles its own errors.
 */
export function every(intervalMs: number, pass: () => Promise<void>, { now = false } = {}): { stop(): Promise<void> } {
  let current: Promise<void> = now ? pass() : Promise.resolve();
  const timer = setInterval(() => {
    current = current.then(pass);
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}
