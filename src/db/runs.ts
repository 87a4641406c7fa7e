import type { Run } from '../generated/prisma/client.ts';
import { activeStatuses } from '../shared/run-status.ts';
import type { Db } from './client.ts';
import { sqlOfPool } from './sql.ts';
import { newestFirst } from './order.ts';

export type { Run };

/** The runs of a task, newest first. */
export async function listRunsOfTask(db: Db, taskId: string): Promise<Run[]> {
  return db.run.findMany({ where: { taskId }, orderBy: newestFirst });
}

/** The task's latest run, or null when it has none yet. */
export async function latestRunOfTask(db: Db, taskId: string): Promise<Run | null> {
  return db.run.findFirst({ where: { taskId }, orderBy: newestFirst });
}

/** A run with the org, agent and user of its task: what deciding who may see it needs. */
export async function findRunWithOwner(db: Db, runId: string) {
  return db.run.findUnique({
    where: { id: runId },
    include: { task: { select: { orgId: true, agentId: true, userId: true } } },
  });
}

/** What streaming a run needs to know about it. */
export interface StreamableRun {
  id: string;
  taskId: string;
  lastEventSeq: number;
}

const STREAMABLE_COLUMNS = 'id, task_id AS "taskId", last_event_seq AS "lastEventSeq"';

export async function findStreamableRun(db: Db, runId: string): Promise<StreamableRun | null> {
  const [run] = await sqlOfPool(db).query<StreamableRun>(`SELECT ${STREAMABLE_COLUMNS} FROM runs WHERE id = $1`, [
    runId,
  ]);
  return run ?? null;
}

/** The latest run of a task (by creation time), as streaming needs it. */
export async function latestStreamableRun(db: Db, taskId: string): Promise<StreamableRun | null> {
  const [run] = await sqlOfPool(db).query<StreamableRun>(
    `SELECT ${STREAMABLE_COLUMNS} FROM runs WHERE task_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
    [taskId],
  );
  return run ?? null;
}

/** Whether the run belongs to the task. */
export async function isRunOfTask(db: Db, runId: string, taskId: string): Promise<boolean> {
  // On the pool, like the other reads of a stream's (re)connect: see runExists.
  return (await sqlOfPool(db).query('SELECT 1 FROM runs WHERE id = $1 AND task_id = $2', [runId, taskId])).length > 0;
}

/** Whether the run's row still exists (its task was not deleted). */
export async function runExists(db: Db, runId: string): Promise<boolean> {
  // On the pool: every open stream asks this at each heartbeat, and a first Prisma query would cost an idle api ~43 MiB.
  return (await sqlOfPool(db).query('SELECT 1 FROM runs WHERE id = $1', [runId])).length > 0;
}

/** A run's task and status, to check a request names a run of its task that is still going. */
export async function findRunState(db: Db, runId: string) {
  return db.run.findUnique({ where: { id: runId }, select: { id: true, taskId: true, status: true } });
}

/** The org, task and agent ids of a run (null when it is gone). */
export async function findRunOwner(
  db: Db,
  runId: string,
): Promise<{ orgId: string; taskId: string; agentId: string } | null> {
  const run = await db.run.findUnique({
    where: { id: runId },
    select: { taskId: true, task: { select: { orgId: true, agentId: true } } },
  });
  return run && { orgId: run.task.orgId, taskId: run.taskId, agentId: run.task.agentId };
}

/**
 * Runs still `pending` that were created before `createdBefore`, oldest first, with what
 * starting their workflow needs: candidates for a workflow that was never started.
 */
export async function listPendingRunsBefore(db: Db, createdBefore: Date, limit: number) {
  return sqlOfPool(db).query<{
    id: string;
    taskId: string;
    mode: 'fast' | 'deep';
    routingReason: string;
    createdAt: Date;
    orgId: string;
    agentId: string;
    userId: string;
    agentName: string;
    maxConcurrentRuns: number | null;
  }>(
    // A run waiting for its org's concurrency slot has a workflow (it marked itself waiting): not stuck.
    `SELECT r.id, r.task_id AS "taskId", r.mode::text AS mode, r.routing_reason AS "routingReason", r.created_at AS "createdAt",
       t.org_id AS "orgId", t.agent_id AS "agentId", t.user_id AS "userId", a.name AS "agentName",
       o.max_concurrent_runs AS "maxConcurrentRuns"
     FROM runs r JOIN tasks t ON t.id = r.task_id JOIN agents a ON a.id = t.agent_id JOIN orgs o ON o.id = t.org_id
     WHERE r.status = 'pending' AND r.queued_at IS NULL AND r.concurrency_slot IS NULL AND r.created_at < $1
     ORDER BY r.created_at LIMIT $2`,
    [createdBefore, limit],
  );
}

/** How many runs are active, by status and mode (the `ars_runs_active` gauge). */
export async function countActiveRuns(db: Db): Promise<{ status: string; mode: string; count: number }[]> {
  return sqlOfPool(db).query<{ status: string; mode: string; count: number }>(
    `SELECT status::text AS status, mode::text AS mode, count(*)::int AS count FROM runs
     WHERE status::text = ANY($1::text[]) GROUP BY 1, 2`,
    [activeStatuses],
  );
}

/**
 * Stores a steering comment on a run that is still active, under the run row's lock: a model step
 * storing the run's end takes the same lock and will not end the run over a comment it has not
 * applied (RunStep.unlessInterrupted), so a comment is either stored first and answered, or refused
 * because the run ended. The row is updated, not only locked, so an end that waited for this write
 * sees that it must look again (lockRunLogToEnd). Undefined when the run is not active (any more).
 */
export async function recordComment(db: Db, comment: { id: string; runId: string; userId: string; content: string }) {
  const [stored] = await sqlOfPool(db).query<{ id: string; content: string; createdAt: Date }>(
    `WITH run AS (UPDATE runs SET updated_at = now() WHERE id = $2 AND status::text = ANY($5::text[]) RETURNING id)
     INSERT INTO run_comments (id, run_id, user_id, content) SELECT $1, run.id, $3, $4 FROM run
     RETURNING id, content, created_at AS "createdAt"`,
    [comment.id, comment.runId, comment.userId, comment.content, activeStatuses],
  );
  return stored;
}

/** Takes back a comment that could not be delivered (its run had ended). */
export async function deleteComment(db: Db, commentId: string): Promise<void> {
  await db.runComment.delete({ where: { id: commentId } });
}

export async function findRun(db: Db, runId: string): Promise<Run | null> {
  return db.run.findUnique({ where: { id: runId } });
}
