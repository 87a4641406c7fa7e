import { vi } from 'vitest';

export interface EventuallyOptions {
  /** How long to keep trying, in ms. */
  timeout?: number;
  /** The pause between tries, in ms. */
  interval?: number;
}

/**
 * Retries `check` until it returns without throwing, and returns what it returned. `check` asserts with
 * `expect` (or throws); after `timeout` the test fails with `what` and the last assertion's message.
 * The one way tests wait for something to happen: no fixed sleeps, no hand-rolled deadline loops.
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  { timeout = 30_000, interval = 200 }: EventuallyOptions = {},
): Promise<T> {
  try {
    return await vi.waitFor(check, { timeout, interval });
  } catch (error) {
    const last = error instanceof Error ? error.message : String(error);
    throw new Error(`${what}: not within ${timeout} ms; last try: ${last}`, { cause: error });
  }
}
