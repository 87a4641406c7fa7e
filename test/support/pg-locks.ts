import { expect } from 'vitest';
import type pg from 'pg';
import { eventually } from './eventually.ts';
import { testDb } from './tenant.ts';

/** The backend pid of `client`'s session. */
export async function backendPid(client: pg.Client): Promise<number> {
  return (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
}

/**
 * Waits until `count` sessions wait, directly or in a queue, for a lock held by the session `pid`: a
 * statement queued behind a held row lock has taken its snapshot, the interleaving a race test needs.
 * A second waiter for a row waits for the first one, not for the holder, hence the chain.
 */
export async function waitUntilBlockedBy(pid: number, count: number, what: string): Promise<void> {
  await eventually(what, async () => {
    const [row] = await testDb().$queryRaw<{ n: bigint }[]>`
      WITH RECURSIVE waiting(pid) AS (
        SELECT pid FROM pg_stat_activity WHERE ${pid}::int = ANY(pg_blocking_pids(pid))
        UNION
        SELECT a.pid FROM pg_stat_activity a JOIN waiting w ON w.pid = ANY(pg_blocking_pids(a.pid))
      )
      SELECT count(*) AS n FROM waiting`;
    expect(Number(row!.n)).toBe(count);
  });
}
