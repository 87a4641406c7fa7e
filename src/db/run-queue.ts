import type { RunEventInput } from '../shared/events.ts';
import { runErrorCodes } from '../shared/run-error-codes.ts';
import { terminalStatuses, type RunStatus } from '../shared/run-status.ts';
import type { Db, Tx } from './client.ts';
import { appendMessages, type NewMessage } from './conversation.ts';
import { appendEventsWith } from './event-log.ts';
import { inPgTransaction, sqlOfPool, sqlOfTx, type Sql } from './sql.ts';
import { unstartedRunEnd } from './run-status-writes.ts';

/**
 * The queue of a task's runs (POST /api/run `multitask_strategy`). A queued run is `pending`
 * with `queued_at` set and no workflow yet; its request messages wait in `queued_messages`.
 * When no other unfinished run of its task is left, the oldest queued run is taken off the
 * queue (`takeQueuedRun`) and its workflow started: by the api that sees the last run's
 * terminal event, or by the reconciler's next pass.
 */

export interface UnfinishedRun {
  id: string;
  status: RunStatus;
  /** Set while the run waits in the queue. */
  queuedAt: Date | null;
}

/** The task's runs that have not ended, oldest first (the running one, then the queue). */
export async function unfinishedRuns(sql: Sql, taskId: string): Promise<UnfinishedRun[]> {
  const rows = await sql.query<{ id: string; status: RunStatus; queued_at: Date | null }>(
    `SELECT id, status::text AS status, queued_at FROM runs
     WHERE task_id = $1 AND status::text <> ALL($2::text[]) ORDER BY created_at, id`,
    [taskId, terminalStatuses],
  );
  return rows.map((r) => ({ id: r.id, status: r.status, queuedAt: r.queued_at }));
}

/** The run a task's cancel, pause and resume act on: its oldest unfinished run (undefined when none). */
export async function currentRunOf(db: Db, taskId: string): Promise<UnfinishedRun | undefined> {
  return (await unfinishedRuns(sqlOfPool(db), taskId))[0];
}

/**
 * Ends queued runs that never started (an `interrupt` or `rollback` request, or a cancel while
 * queued): status cancelled and their one terminal event, RUN_ERROR with code CANCELLED.
 * Returns the ids it ended (a run that left the queue meanwhile is left alone).
 */
export async function cancelQueuedRuns(sql: Sql, runIds: string[], message: string): Promise<string[]> {
  const ended: string[] = [];
  const error = { code: runErrorCodes.cancelled, message };
  const end = unstartedRunEnd('cancelled');
  for (const runId of runIds) {
    const claimed = await sql.query(
      `UPDATE runs SET status = $3::"RunStatus", finished_at = now(), updated_at = now(), queued_at = NULL, queued_messages = NULL, error = $2::jsonb
       WHERE id = $1 AND status = $4::"RunStatus" AND queued_at IS NOT NULL RETURNING id`,
      [runId, JSON.stringify(error), end.to, end.from],
    );
    if (claimed.length === 0) continue;
    const event: RunEventInput = { type: 'RUN_ERROR', run_id: runId, ...error, details: { queued: true } };
    await appendEventsWith(sql, runId, [event], 'queued-cancelled');
    ended.push(runId);
  }
  return ended;
}

/** Cancels a task's queued run that never started; false when it left the queue meanwhile. */
export async function cancelQueuedRun(db: Db, runId: string, message: string): Promise<boolean> {
  return inPgTransaction(db, async (sql) => (await cancelQueuedRuns(sql, [runId], message)).length === 1);
}

/** A queued run taken off its queue: what starting its workflow needs. */
export interface DequeuedRun {
  id: string;
  taskId: string;
  mode: 'fast' | 'deep';
  routingReason: string;
  orgId: string;
  agentId: string;
  agentName: string;
  userId: string;
  /** Its last user message (the run's summary in the Temporal UI). */
  request?: string;
  /** The runs its start deleted (`rollback`). */
  rolledBack: string[];
  /** The flow that started its task, if one did. */
  source?: { kind: string; flow_name: string; external_id: string };
  /** Its org's limit of concurrent runs (null: none). */
  maxConcurrentRuns: number | null;
}

/**
 * Takes the task's oldest queued run off the queue when nothing else of the task is unfinished,
 * in one transaction that holds the task's lock: deletes the runs it rolls back (with their
 * messages and events), adds its request messages to the conversation and clears `queued_at`.
 * The caller then starts its workflow; if the caller dies first, the run is an ordinary pending
 * run without a workflow, which the reconciler starts.
 */
export async function takeQueuedRun(db: Db, taskId: string): Promise<DequeuedRun | undefined> {
  return db.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM tasks WHERE id = ${taskId} FOR UPDATE`;
    if (locked.length === 0) return undefined;
    const [first] = await unfinishedRuns(sqlOfTx(tx), taskId);
    if (!first || first.queuedAt === null) return undefined; // nothing queued, or a run still under way
    const run = await tx.run.update({
      where: { id: first.id },
      data: { queuedAt: null },
      select: {
        id: true,
        taskId: true,
        mode: true,
        routingReason: true,
        queuedMessages: true,
        rollsBack: true,
        task: {
          select: {
            orgId: true,
            agentId: true,
            userId: true,
            source: true,
            agent: { select: { name: true } },
            org: { select: { maxConcurrentRuns: true } },
          },
        },
      },
    });
    const rolledBack = run.rollsBack.length === 0 ? [] : await deleteEndedRuns(tx, taskId, run.rollsBack);
    await tx.$executeRaw`UPDATE runs SET queued_messages = NULL WHERE id = ${run.id}`;
    const messages = (run.queuedMessages ?? []) as unknown as NewMessage[];
    await appendMessages(tx, taskId, run.id, messages);
    const { task } = run;
    return {
      id: run.id,
      taskId,
      mode: run.mode,
      routingReason: run.routingReason,
      orgId: task.orgId,
      agentId: task.agentId,
      agentName: task.agent.name,
      userId: task.userId,
      source: (task.source ?? undefined) as DequeuedRun['source'],
      request: messages.findLast((m) => m.role === 'user')?.content,
      rolledBack,
      maxConcurrentRuns: task.org.maxConcurrentRuns,
    };
  });
}

/** Deletes ended runs of the task (a `rollback`): their messages, events and the rest go with them. */
async function deleteEndedRuns(tx: Tx, taskId: string, runIds: string[]): Promise<string[]> {
  const deleted = await tx.run.findMany({
    where: { id: { in: runIds }, taskId, status: { in: terminalStatuses } },
    select: { id: true },
  });
  await tx.run.deleteMany({ where: { id: { in: deleted.map((r) => r.id) } } });
  return deleted.map((r) => r.id);
}

/** Tasks with queued runs and no other unfinished run: queues that should have moved (the reconciler's list). */
export async function listStalledQueues(db: Db, limit: number): Promise<string[]> {
  const rows = await sqlOfPool(db).query<{ task_id: string }>(
    `SELECT DISTINCT q.task_id FROM runs q
     WHERE q.queued_at IS NOT NULL
       AND NOT EXISTS (
         SELECT 1 FROM runs a WHERE a.task_id = q.task_id AND a.queued_at IS NULL
           AND a.status::text <> ALL($1::text[]))
     LIMIT $2`,
    [terminalStatuses, limit],
  );
  return rows.map((r) => r.task_id);
}
