/** Retry policy of the client: bounded attempts, exponential backoff with full jitter, abortable waits. */

export interface RetryOptions {
  /** Retries after the first attempt (default 4). 0 turns retrying off. */
  maxRetries?: number;
  /** First backoff ceiling in ms (default 500); it doubles per attempt. */
  baseDelayMs?: number;
  /** Largest backoff ceiling in ms (default 8000). */
  maxDelayMs?: number;
  /** Longest `Retry-After` the client waits, in ms (default 60000); a longer one is thrown as a RateLimitError. */
  maxRetryAfterMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
};

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  return { ...DEFAULT_RETRY, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
}

/** "Full jitter": a uniformly random wait below the exponential ceiling of this attempt (0-based). */
export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.random() * ceiling;
}

/** Waits `ms`; rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
