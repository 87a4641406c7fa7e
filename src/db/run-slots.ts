import type { RunEventInput } from '../shared/events.ts';
import { activeStatuses } from '../shared/run-status.ts';
import type { Db } from './client.ts';
import { appendEventsWith, RunGoneError } from './event-log.ts';
import { inPgTransaction, sqlOfPool, type Sql } from './sql.ts';

/**
 * An org's concurrent-run limit (orgs.max_concurrent_runs). A run of a limited org holds a slot
 * from its admission until it ends, waits for input and approvals included; runs that are not
 * admitted yet stay `pending` with `concurrency_slot = 'waiting'` and are admitted oldest first.
 * Runs that started while the org had no limit hold a slot while they run (`concurrency_slot` null, not pending).
 */

/**
 * Admitted (with the waiting runs that may take the slots still free: a raised or lifted limit
 * admits them in a chain, each telling the next), or waiting at `position` (1: next).
 */
export type Admission = { admitted: true; wake?: string[] } | { admitted: false; position: number };

/**
 * The key of the SYSTEM_STATUS `queued` a waiting run writes at each place it reaches in the org's queue: once when
 * it first waits, then again at each check that finds it further up. Places only fall (runs behind were created later).
 */
export const queuedKey = (position: number) => `queued-${position}`;

/**
 * The org's runs holding a slot: those under way (admitted or from before the limit), and those admitted that have
 * not stored their first move yet. Found through the status index: active and pending runs are few, ended ones many.
 */
const HELD = `SELECT count(*)::int AS n FROM runs r JOIN tasks t ON t.id = r.task_id
  WHERE t.org_id = $1 AND (r.status::text = ANY($2::text[]) OR (r.status = 'pending' AND r.concurrency_slot = 'held'))`;
const underWay = activeStatuses.filter((s) => s !== 'pending');

/** Waiting runs of the org created before `$2` (and before `$3` by id at the same instant). */
const WAITING_AHEAD = `SELECT count(*)::int AS n FROM runs r JOIN tasks t ON t.id = r.task_id
  WHERE r.concurrency_slot = 'waiting' AND r.status = 'pending' AND t.org_id = $1
    AND (r.created_at, r.id) < ($2::timestamptz, $3::text)`;

/**
 * Admits the run if the org has a free slot and no run of it waits longer; otherwise marks it
 * waiting, reports its place with a SYSTEM_STATUS `queued` event when the place is new, and says it. One
 * transaction under the org's advisory lock, so every api and worker replica sees one count.
 */
export async function admitRun(db: Db, runId: string): Promise<Admission> {
  return inPgTransaction(db, async (sql) => {
    const [run] = await sql.query<{ org_id: string; created_at: Date; slot: string | null; status: string }>(
      `SELECT t.org_id, r.created_at, r.concurrency_slot AS slot, r.status::text AS status
       FROM runs r JOIN tasks t ON t.id = r.task_id WHERE r.id = $1`,
      [runId],
    );
    if (!run) throw new RunGoneError(runId);
    if (run.slot === 'held' || run.status !== 'pending') return { admitted: true };
    await sql.query(`SELECT pg_advisory_xact_lock(hashtextextended('org-run-slots:' || $1, 0))`, [run.org_id]);
    const [org] = await sql.query<{ max: number | null }>(`SELECT max_concurrent_runs AS max FROM orgs WHERE id = $1`, [
      run.org_id,
    ]);
    const ahead = await countOf(sql, WAITING_AHEAD, [run.org_id, run.created_at, runId]);
    const limit = org?.max ?? null;
    const held = limit === null ? 0 : await countOf(sql, HELD, [run.org_id, underWay]);
    if (limit === null || (ahead === 0 && held < limit)) {
      await sql.query(`UPDATE runs SET concurrency_slot = 'held' WHERE id = $1`, [runId]);
      const free = limit === null ? WAKE_PAGE : limit - held - 1;
      return { admitted: true, wake: free > 0 ? await oldestWaiting(sql, run.org_id, free) : [] };
    }
    if (run.slot !== 'waiting') await sql.query(`UPDATE runs SET concurrency_slot = 'waiting' WHERE id = $1`, [runId]);
    const position = ahead + 1;
    const event: RunEventInput = {
      type: 'CUSTOM',
      name: 'SYSTEM_STATUS',
      data: { status: 'queued', reason: 'org_concurrency_limit', limit, position },
    };
    await appendEventsWith(sql, runId, [event], queuedKey(position));
    return { admitted: false, position };
  });
}

/**
 * The org's waiting runs that may take a slot now (the oldest, as many as slots are free): a run
 * that ended tells them, so they try again without waiting for their poll.
 */
export async function runsToAdmit(db: Db, orgId: string): Promise<string[]> {
  const sql = sqlOfPool(db);
  const [org] = await sql.query<{ max: number | null }>(`SELECT max_concurrent_runs AS max FROM orgs WHERE id = $1`, [
    orgId,
  ]);
  const free = org?.max == null ? WAKE_PAGE : org.max - (await countOf(sql, HELD, [orgId, underWay]));
  return free > 0 ? oldestWaiting(sql, orgId, free) : [];
}

/** Without a limit (it was lifted) every waiting run may go: told a page at a time, each admitted run telling the next page. */
const WAKE_PAGE = 100;

async function oldestWaiting(sql: Sql, orgId: string, count: number): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `SELECT r.id FROM runs r JOIN tasks t ON t.id = r.task_id
     WHERE r.concurrency_slot = 'waiting' AND r.status = 'pending' AND t.org_id = $1
     ORDER BY r.created_at, r.id LIMIT $2`,
    [orgId, count],
  );
  return rows.map((r) => r.id);
}

async function countOf(sql: Sql, text: string, values: unknown[]): Promise<number> {
  const [row] = await sql.query<{ n: number }>(text, values);
  return row?.n ?? 0;
}
