import { poolOf, type Db, type Tx } from './client.ts';
import { inPgTransaction, prepared, sqlOfPool, sqlOfTx, type Sql } from './sql.ts';
import { eventName, type RunEvent, type RunEventInput } from '../shared/events.ts';
import type { RunStatus } from '../shared/run-status.ts';
import type { TokenUsage } from '../shared/run-workflow-types.ts';

/**
 * The channel every inserted event notifies with its run id: the writer is the
 * trigger `notify_run_event` (migration 20261121000000_init), the listener the
 * api's event hub. test/schema-drift.test.ts checks the trigger uses this name.
 */
export const EVENTS_CHANNEL = 'run_events';

/**
 * The channel a run's terminal event notifies with its task id when that task has queued runs
 * (the same trigger, migration 20261126100000_notify_queue_moves): the apis then start the next
 * one. test/schema-drift.test.ts checks the trigger uses this name.
 */
export const QUEUES_CHANNEL = 'task_queues';

/** The run's row is gone (its task was deleted): nothing more can be written for it. */
export class RunGoneError extends Error {
  override name = 'RunGoneError';
  constructor(readonly runId: string) {
    super(`run ${runId} does not exist`);
  }
}

export interface StoredEvent {
  runId: string;
  seq: number;
  type: string;
  name: string;
  payload: RunEvent;
  createdAt: Date;
}

/**
 * Appends events to a run's log in one transaction. Locking the run row both
 * serializes writers and makes `seq` gap-free, so commit order = seq order.
 * With an idempotency key, a repeated call (a retried activity) returns the
 * events written the first time instead of writing them again.
 */
export async function appendEvents(
  db: Db,
  runId: string,
  events: RunEventInput[],
  idempotencyKey?: string,
): Promise<AppendResult> {
  if (idempotencyKey === undefined && events.length > 0)
    return { events: await appendUnkeyed(db, runId, events), duplicate: false };
  return inPgTransaction(db, (sql) => appendEventsWith(sql, runId, events, idempotencyKey));
}

/**
 * The hot path (a model step's token deltas): one statement instead of an
 * interactive transaction, on the pool directly (Prisma's per-query work would
 * more than double its time, and so the relay's latency). The UPDATE takes the
 * run row's lock and bumps the counter; the INSERT numbers the rows from it;
 * both commit together.
 */
async function appendUnkeyed(db: Db, runId: string, events: RunEventInput[]): Promise<StoredEvent[]> {
  const now = new Date();
  const payloads = events.map((event) => ({ ...event, timestamp: now.getTime() }) as RunEvent);
  const { rows } = await poolOf(db).query<{ seq: number }>(
    prepared(
      `WITH bumped AS (
      UPDATE runs SET last_event_seq = last_event_seq + $2 WHERE id = $1 RETURNING last_event_seq
    )
    INSERT INTO run_events (run_id, seq, type, name, payload, created_at)
    SELECT $1, bumped.last_event_seq - $2 + e.ord::int, e.type, e.name, e.payload::jsonb, $6
    FROM bumped, unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(type, name, payload, ord)
    RETURNING seq`,
      [
        runId,
        events.length,
        events.map((e) => e.type),
        events.map(eventName),
        payloads.map((p) => JSON.stringify(p)),
        now,
      ],
    ),
  );
  if (rows.length === 0) throw new RunGoneError(runId);
  const seqs = rows.map((r) => r.seq).sort((a, b) => a - b);
  return payloads.map((payload, i) => ({
    runId,
    seq: seqs[i]!,
    type: payload.type,
    name: eventName(payload),
    payload,
    createdAt: now,
  }));
}

export interface AppendResult {
  events: StoredEvent[];
  /** True when the key was seen before: nothing was written, `events` are the earlier ones. */
  duplicate: boolean;
}

/** Appends in the caller's Prisma transaction (see appendEventsWith). */
export function appendEventsInTx(
  tx: Tx,
  runId: string,
  events: RunEventInput[],
  idempotencyKey?: string,
): Promise<AppendResult> {
  return appendEventsWith(sqlOfTx(tx), runId, events, idempotencyKey);
}

/**
 * Appends in the caller's transaction, in two statements: the first locks the run row (and
 * finds an earlier write of the same key), the second bumps the counter and inserts the rows.
 */
export async function appendEventsWith(
  sql: Sql,
  runId: string,
  events: RunEventInput[],
  idempotencyKey?: string,
): Promise<AppendResult> {
  const run = await lockRunLog(sql, runId, idempotencyKey);
  if (run.earlier !== null)
    return { events: await readEarlierWrite(sql, runId, run.earlier, events.length), duplicate: true };
  return { events: await insertLocked(sql, run, events, idempotencyKey), duplicate: false };
}

/** The run's log, locked for this transaction: where it ends, the run's status, and the seq of an earlier write of `idempotencyKey`. */
export interface LockedLog {
  runId: string;
  lastSeq: number;
  status: RunStatus;
  /** The first seq an earlier write of the same key stored, or null. */
  earlier: number | null;
}

const keyOf = (idempotencyKey: string | undefined, i: number) =>
  idempotencyKey === undefined ? null : `${idempotencyKey}#${i}`;

/** Locks the run row until the transaction ends: writers of one run's log take turns, so commit order is seq order. */
export async function lockRunLog(sql: Sql, runId: string, idempotencyKey?: string): Promise<LockedLog> {
  const [run] = await sql.query<{ last_event_seq: number; earlier: number | null; status: RunStatus }>(LOCK_RUN_LOG, [
    runId,
    keyOf(idempotencyKey, 0),
  ]);
  if (!run) throw new RunGoneError(runId);
  return { runId, lastSeq: run.last_event_seq, status: run.status, earlier: run.earlier };
}

const LOCK_RUN_LOG = `SELECT r.last_event_seq, r.status::text AS status,
       (SELECT e.seq FROM run_events e WHERE e.run_id = r.id AND e.idempotency_key = $2) AS earlier
     FROM runs r WHERE r.id = $1 FOR UPDATE OF r`;

/** A locked log with what the run's end needs: whether the run was billed, the tokens of attempts a retry discarded (model-attempts.ts), and whether a cancel or a comment is waiting. */
export interface LockedLogToEnd extends LockedLog {
  billed: boolean;
  discarded: TokenUsage;
  /** A cancel wrote its STOPPING, or a steering comment is stored that the run has not applied. */
  interrupted: boolean;
}

/**
 * lockRunLog for the terminal step, in the same round trip; the keys say how STOPPING and an applied
 * comment are written. The statement's checks (the step's key, STOPPING, comments) read its snapshot,
 * taken before it waited for the run's row: a write that committed while it waited (a cancel's
 * STOPPING, stored by storePlainStep; a steering comment, recordComment) would be missed, and the end
 * stored over an accepted cancel or an unanswered comment. Both update the run's row, and the locked
 * row is read as committed: when it is not the version the snapshot sees (`stale`), the statement
 * runs again, now holding the lock, on a fresh snapshot.
 */
export async function lockRunLogToEnd(
  sql: Sql,
  runId: string,
  idempotencyKey: string,
  keys: { stoppingKey: string; commentKeyPrefix: string },
): Promise<LockedLogToEnd> {
  let run = await readRunLogToEnd(sql, runId, idempotencyKey, keys);
  if (run?.stale) run = await readRunLogToEnd(sql, runId, idempotencyKey, keys);
  if (!run) throw new RunGoneError(runId);
  return {
    runId,
    lastSeq: run.last_event_seq,
    status: run.status,
    earlier: run.earlier,
    billed: run.billed,
    discarded: { inputTokens: run.input_tokens, outputTokens: run.output_tokens },
    interrupted: run.interrupted,
  };
}

async function readRunLogToEnd(
  sql: Sql,
  runId: string,
  idempotencyKey: string,
  keys: { stoppingKey: string; commentKeyPrefix: string },
) {
  const [run] = await sql.query<{
    last_event_seq: number;
    earlier: number | null;
    status: RunStatus;
    billed: boolean;
    input_tokens: number;
    output_tokens: number;
    interrupted: boolean;
    stale: boolean;
  }>(
    `SELECT r.last_event_seq, r.status::text AS status, r.billed_at IS NOT NULL AS billed,
       (SELECT e.seq FROM run_events e WHERE e.run_id = r.id AND e.idempotency_key = $2) AS earlier,
       d.input_tokens, d.output_tokens,
       EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.idempotency_key = $3)
         OR EXISTS (SELECT 1 FROM run_comments c WHERE c.run_id = r.id
                    AND NOT EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.idempotency_key = $4 || c.id || '#0')) AS interrupted,
       r.xmin::text <> (SELECT x.xmin::text FROM runs x WHERE x.id = r.id) AS stale
     FROM runs r, LATERAL (SELECT COALESCE(sum(a.input_tokens), 0)::int AS input_tokens, COALESCE(sum(a.output_tokens), 0)::int AS output_tokens
                           FROM model_attempts a WHERE a.run_id = r.id AND a.discarded) d
     WHERE r.id = $1 FOR UPDATE OF r`,
    [runId, keyOf(idempotencyKey, 0), keyOf(keys.stoppingKey, 0), keys.commentKeyPrefix],
  );
  return run;
}

async function readEarlierWrite(sql: Sql, runId: string, first: number, count: number): Promise<StoredEvent[]> {
  const again = await sql.query<{
    run_id: string;
    seq: number;
    type: string;
    name: string;
    payload: unknown;
    created_at: Date;
  }>(
    'SELECT run_id, seq, type, name, payload, created_at FROM run_events WHERE run_id = $1 AND seq >= $2::int AND seq < $3::int ORDER BY seq',
    [runId, first, first + count],
  );
  return again.map((r) =>
    toStored({ runId: r.run_id, seq: r.seq, type: r.type, name: r.name, payload: r.payload, createdAt: r.created_at }),
  );
}

/**
 * Inserts events after the end of a log this transaction locked (lockRunLog), stamped now: a
 * caller that has more to write in the transaction writes it first, so the stamp is as close to
 * the commit, and so to the notification, as it can be.
 */
export async function insertLocked(
  sql: Sql,
  log: LockedLog,
  events: RunEventInput[],
  idempotencyKey?: string,
): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const rows = stampEvents(log, events, idempotencyKey);
  await sql.query(
    `WITH bumped AS (UPDATE runs SET last_event_seq = $2::int + $3::int WHERE id = $1)
     INSERT INTO run_events (run_id, seq, type, name, payload, idempotency_key, created_at)
     SELECT $1, $2::int + e.ord::int, e.type, e.name, e.payload::jsonb, e.key, $4::timestamptz
     FROM unnest($5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS e(type, name, payload, key, ord)`,
    [log.runId, log.lastSeq, events.length, ...rows.values],
  );
  return rows.stored;
}

/**
 * Events to insert after the end of a locked log, stamped now: the events as stored, and the
 * statement values `created_at, types[], names[], payloads[], keys[]` of an insert that numbers
 * them `lastSeq + ordinality` (insertLocked; a run step's closing statement, run-steps.ts).
 */
export function stampEvents(
  log: Pick<LockedLog, 'runId' | 'lastSeq'>,
  events: RunEventInput[],
  idempotencyKey?: string,
): { stored: StoredEvent[]; values: unknown[] } {
  const now = new Date();
  const stored = events.map((event, i): StoredEvent => {
    const payload = { ...event, timestamp: now.getTime() } as RunEvent;
    return {
      runId: log.runId,
      seq: log.lastSeq + 1 + i,
      type: event.type,
      name: eventName(event),
      payload,
      createdAt: now,
    };
  });
  const values = [
    now,
    stored.map((e) => e.type),
    stored.map((e) => e.name),
    stored.map((e) => JSON.stringify(e.payload)),
    stored.map((_, i) => keyOf(idempotencyKey, i)),
  ];
  return { stored, values };
}

/**
 * The first events of a run this transaction inserted: no other transaction sees the run yet, and
 * it has no events, so its log needs no lock and no check for an earlier write of the key.
 */
export function insertFirstEvents(
  sql: Sql,
  runId: string,
  events: RunEventInput[],
  idempotencyKey?: string,
): Promise<StoredEvent[]> {
  return insertLocked(sql, { runId, lastSeq: 0, status: 'pending', earlier: null }, events, idempotencyKey);
}

/** Events with seq > afterSeq, in order. The primary key (run_id, seq) makes this a range scan. */
export async function readEvents(db: Db, runId: string, afterSeq: number, limit: number): Promise<StoredEvent[]> {
  const rows = await sqlOfPool(db).query<{
    run_id: string;
    seq: number;
    type: string;
    name: string;
    payload: unknown;
    created_at: Date;
  }>(
    'SELECT run_id, seq, type, name, payload, created_at FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
    [runId, afterSeq, limit],
  );
  return rows.map((r) =>
    toStored({ runId: r.run_id, seq: r.seq, type: r.type, name: r.name, payload: r.payload, createdAt: r.created_at }),
  );
}

function toStored(row: {
  runId: string;
  seq: number;
  type: string;
  name: string;
  payload: unknown;
  createdAt: Date;
}): StoredEvent {
  return {
    runId: row.runId,
    seq: row.seq,
    type: row.type,
    name: row.name,
    payload: row.payload as RunEvent,
    createdAt: row.createdAt,
  };
}

/** The type of the run's event at `seq`, or undefined when the run has no such event. */
export async function eventTypeAt(db: Db, runId: string, seq: number): Promise<string | undefined> {
  const [row] = await sqlOfPool(db).query<{ type: string }>(
    'SELECT type FROM run_events WHERE run_id = $1 AND seq = $2',
    [runId, seq],
  );
  return row?.type;
}
