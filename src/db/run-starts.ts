import type { RunClient } from '../shared/run-client.ts';
import type { RunEventInput } from '../shared/events.ts';
import type { MultitaskStrategy } from '../shared/run-request.ts';
import type { RunStatus } from '../shared/run-status.ts';
import type { Db } from './client.ts';
import { appendMessagesWith, messageColumns, type NewMessage } from './conversation.ts';
import { appendEventsInTx, insertFirstEvents, stampEvents } from './event-log.ts';
import { deleteIdempotencyKeysOfRun, storeIdempotencyKey, type KeyOwner } from './idempotency.ts';
import { cancelQueuedRuns, unfinishedRuns } from './run-queue.ts';
import { inPgTransaction, sqlOfPool, type Sql } from './sql.ts';
import { unstartedRunEnd } from './run-status-writes.ts';

export interface NewTask {
  id: string;
  orgId: string;
  agentId: string;
  userId: string;
  title: string;
  /** What started it, when not a user's request (a flow: `{flow_id, flow_name, kind, external_id}`). */
  source?: object;
}

/** The pending run a start request stores. */
export interface NewRun {
  id: string;
  requestedMode: 'auto' | 'fast' | 'deep';
  mode: 'fast' | 'deep';
  routingReason: string;
  timezone?: string;
  streamed: boolean;
  /** The client it is started from (src/shared/run-client.ts); none: another API caller. */
  client?: RunClient;
}

export interface RunStart {
  /** A task the caller may use (checked before), or the new task to create. */
  task: { id: string } | { new: NewTask };
  run: NewRun;
  messages: NewMessage[];
  /** The run's first events, stored with it under their idempotency key. */
  firstEvents: { events: RunEventInput[]; key: string };
  /** The request's idempotency key, stored with the run (an expired row of the same key is replaced). */
  idempotencyKey?: { owner: KeyOwner; key: string; requestHash: string; expiredBefore: Date };
  /** What to do when the task has an unfinished run (default `reject`). */
  strategy?: MultitaskStrategy;
}

export type RunStartResult =
  | {
      stored: true;
      taskId: string;
      createdAt: Date;
      /** The run waits in the task's queue: start no workflow now. */
      queued: boolean;
      /** The running run to cancel now (`interrupt`, `rollback`). */
      interrupt?: string;
    }
  | { stored: false; reason: 'task_gone' }
  | { stored: false; reason: 'active_run'; activeRun: { id: string; status: RunStatus } };

/**
 * Stores a run start in one transaction on the pg pool (src/db/sql.ts): the task (created, or
 * locked so two requests cannot both start a run on it), the pending run, the turn's messages,
 * its first events and its idempotency key. A continued task that was deleted meanwhile, or that
 * has an active run, stores nothing. Two requests racing on one idempotency key: the second
 * violates the key's primary key and its transaction rolls back.
 */
export async function storeRunStart(db: Db, start: RunStart): Promise<RunStartResult> {
  if ('new' in start.task) {
    const task = start.task.new;
    // A new task's rows are one statement, which is its own transaction unless a key goes with it.
    if (!start.idempotencyKey) return insertNewTaskRun(sqlOfPool(db), start, task);
    return inPgTransaction(db, async (sql) => {
      const stored = await insertNewTaskRun(sql, start, task);
      await storeKeyOfStart(sql, start);
      return stored;
    });
  }
  const taskId = start.task.id;
  return inPgTransaction(db, async (sql): Promise<RunStartResult> => {
    const locked = await sql.query('SELECT id FROM tasks WHERE id = $1 FOR UPDATE', [taskId]);
    if (locked.length === 0) return { stored: false, reason: 'task_gone' };
    let busy: { queued: boolean; interrupt?: string; rollsBack: string[] } | undefined;
    const unfinished = await unfinishedRuns(sql, taskId);
    if (unfinished.length > 0) {
      const strategy = start.strategy ?? 'reject';
      if (strategy === 'reject') return { stored: false, reason: 'active_run', activeRun: unfinished[0]! };
      busy = await makeRoom(sql, strategy, unfinished, start.run.id);
    }
    const queued = busy !== undefined;
    const { id, requestedMode, mode, routingReason, timezone, streamed, client } = start.run;
    const [run] = await sql.query<{ created_at: Date }>(
      `INSERT INTO runs (id, task_id, requested_mode, mode, routing_reason, timezone, streamed, queued_at, queued_messages, rolls_back, client)
       VALUES ($1, $2, $3, $4::"RunMode", $5, $6, $7, CASE WHEN $8::boolean THEN now() END, $9::jsonb, $10::text[], $11)
       RETURNING created_at`,
      [
        id,
        taskId,
        requestedMode,
        mode,
        routingReason,
        timezone ?? null,
        streamed,
        queued,
        queued ? JSON.stringify(start.messages) : null,
        busy?.rollsBack ?? [],
        client ?? null,
      ],
    );
    // A queued run's messages and first events wait until it starts, after everything the runs before it write.
    if (!queued) {
      await appendMessagesWith(sql, taskId, id, start.messages);
      await insertFirstEvents(sql, id, start.firstEvents.events, start.firstEvents.key);
    }
    await storeKeyOfStart(sql, start);
    return {
      stored: true,
      taskId,
      createdAt: run!.created_at,
      queued,
      ...(busy?.interrupt ? { interrupt: busy.interrupt } : {}),
    };
  });
}

/** The request's idempotency key, if it has one, pointing at the run being stored. */
async function storeKeyOfStart(sql: Sql, start: RunStart): Promise<void> {
  if (!start.idempotencyKey) return;
  const { owner, key, requestHash, expiredBefore } = start.idempotencyKey;
  await storeIdempotencyKey(sql, { ...owner, key, requestHash, runId: start.run.id }, expiredBefore);
}

/**
 * A new task's run in one statement: the task, the run, the turn's messages and its first events
 * (alone, a statement is its own transaction: four round trips fewer than BEGIN, three inserts and
 * COMMIT). Nothing can be queued on a task that does not exist yet, and nobody else sees the run
 * before it commits, so its log starts at its first events.
 */
async function insertNewTaskRun(sql: Sql, start: RunStart, task: NewTask): Promise<RunStartResult> {
  const { id, requestedMode, mode, routingReason, timezone, streamed, client } = start.run;
  const { events, key } = start.firstEvents;
  const [run] = await sql.query<{ created_at: Date }>(
    `WITH task AS (INSERT INTO tasks (id, org_id, agent_id, user_id, title, source) VALUES ($2, $8, $9, $10, $11, $22::jsonb)),
     run AS (
       INSERT INTO runs (id, task_id, requested_mode, mode, routing_reason, timezone, streamed, last_event_seq, client)
       VALUES ($1, $2, $3, $4::"RunMode", $5, $6, $7, $12::int, $23) RETURNING created_at
     ),
     turn AS (
       INSERT INTO messages (id, task_id, run_id, role, content, parts, position)
       SELECT m.id, $2, $1, m.role, m.content, m.parts::jsonb, m.ord::int
       FROM unnest($13::text[], $14::text[], $15::text[], $16::text[]) WITH ORDINALITY AS m(id, role, content, parts, ord)
     ),
     first_events AS (
       INSERT INTO run_events (run_id, seq, type, name, payload, idempotency_key, created_at)
       SELECT $1, e.ord::int, e.type, e.name, e.payload::jsonb, e.key, $17::timestamptz
       FROM unnest($18::text[], $19::text[], $20::text[], $21::text[]) WITH ORDINALITY AS e(type, name, payload, key, ord)
     )
     SELECT created_at FROM run`,
    [
      id,
      task.id,
      requestedMode,
      mode,
      routingReason,
      timezone ?? null,
      streamed,
      task.orgId,
      task.agentId,
      task.userId,
      task.title,
      events.length,
      ...messageColumns(start.messages),
      ...stampEvents({ runId: id, lastSeq: 0 }, events, key).values,
      task.source === undefined ? null : JSON.stringify(task.source),
      client ?? null,
    ],
  );
  return { stored: true, taskId: task.id, createdAt: run!.created_at, queued: false };
}

/**
 * A new run on a task with unfinished runs. `enqueue`: it waits behind them. `interrupt`: the
 * queued ones that never started are cancelled here, the running one is named for the caller to
 * cancel, and the new run waits for it to end. `rollback`: as `interrupt`, and the new run's
 * start deletes all of them from the task.
 */
async function makeRoom(
  sql: Sql,
  strategy: Exclude<MultitaskStrategy, 'reject'>,
  unfinished: { id: string; queuedAt: Date | null }[],
  newRunId: string,
) {
  if (strategy === 'enqueue') return { queued: true, rollsBack: [] };
  const running = unfinished.find((r) => r.queuedAt === null)?.id;
  const waiting = unfinished.filter((r) => r.queuedAt !== null).map((r) => r.id);
  const cancelled = await cancelQueuedRuns(
    sql,
    waiting,
    `Cancelled before it started: run ${newRunId} (${strategy}) replaced it`,
  );
  const rollsBack = strategy === 'rollback' ? [...(running ? [running] : []), ...cancelled] : [];
  return { queued: true, ...(running ? { interrupt: running } : {}), rollsBack };
}

/**
 * Ends a run whose workflow never started, unless it started or ended meanwhile: status failed,
 * one RUN_ERROR, its idempotency key freed. Returns the run's mode when this call ended it.
 */
export async function storeUnstartedRunFailure(
  db: Db,
  runId: string,
  error: { code: string; message: string },
  event: RunEventInput,
): Promise<string | undefined> {
  return db.$transaction(async (tx) => {
    const end = unstartedRunEnd('failed');
    const claimed = await tx.run.updateMany({
      where: { id: runId, status: end.from },
      data: { status: end.to, finishedAt: new Date(), error },
    });
    if (claimed.count === 0) return undefined;
    await appendEventsInTx(tx, runId, [event], 'start-failed');
    await deleteIdempotencyKeysOfRun(tx, runId);
    return (await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { mode: true } })).mode;
  });
}
