import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

export interface LockWaitOptions {
  signal?: AbortSignal;
  /** Called while waiting, so a long wait does not look like a dead activity. */
  heartbeat?: () => void;
}

const POLL_MS = 200;
const HEARTBEAT_MS = 5000;

/**
 * At most one operation at a time per sandbox: first a FIFO queue in this process
 * (cheap, fair), then a PostgreSQL session advisory lock on a dedicated
 * connection, so operations from other worker processes on the same host also
 * wait. The lock lives as long as that connection: if the worker dies, PostgreSQL
 * releases it. Waiting polls pg_try_advisory_lock so the wait can be cancelled
 * and can heartbeat.
 */
export class SandboxLock {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly databaseUrl: () => Promise<string>) {}

  async run<T>(key: string, fn: () => Promise<T>, opts: LockWaitOptions = {}): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    // Chained on `previous` too, so a waiter that gives up early does not let the next one jump ahead.
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    try {
      await waitFor(previous, opts);
      return await this.withAdvisoryLock(key, fn, opts);
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  private async withAdvisoryLock<T>(key: string, fn: () => Promise<T>, opts: LockWaitOptions): Promise<T> {
    const client = new pg.Client({ connectionString: await this.databaseUrl(), application_name: 'sandbox-lock' });
    client.on('error', () => {}); // a dropped connection surfaces on the next query
    await client.connect();
    try {
      const lockId = advisoryLockId(key);
      let lastBeat = Date.now();
      for (;;) {
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [lockId]);
        if (rows[0]?.ok) break;
        if (Date.now() - lastBeat >= HEARTBEAT_MS) {
          opts.heartbeat?.();
          lastBeat = Date.now();
        }
        await sleep(POLL_MS, undefined, { signal: opts.signal });
      }
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [lockId]).catch(() => {});
      }
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/** A signed 64-bit lock id for the key, namespaced so it cannot collide with other advisory locks of ours by accident. */
export function advisoryLockId(key: string): string {
  const digest = createHash('sha256').update(`sandbox:${key}`).digest();
  return digest.readBigInt64BE(0).toString();
}

async function waitFor(previous: Promise<void>, opts: LockWaitOptions): Promise<void> {
  if (opts.signal?.aborted) throw opts.signal.reason;
  const beat = opts.heartbeat ? setInterval(opts.heartbeat, HEARTBEAT_MS) : undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      previous,
      new Promise<never>((_, reject) => {
        onAbort = () => reject(opts.signal!.reason);
        opts.signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearInterval(beat);
    if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
  }
}
