import type { Run, Task } from '../generated/prisma/client.ts';
import { inboundKinds, type FlowKind } from '../shared/flows.ts';
import { activeStatuses } from '../shared/run-status.ts';
import type { Db, DbOrTx } from './client.ts';
import { sqlOfPool } from './sql.ts';
import { newestFirst } from './order.ts';
import type { Role } from './users.ts';

export type { Task };

export async function findTask(db: Db, taskId: string): Promise<Task | null> {
  // Every request on a task asks this first: on the pg pool.
  const [task] = await sqlOfPool(db).query<Task>(
    `SELECT id, org_id AS "orgId", agent_id AS "agentId", user_id AS "userId", title, source, created_at AS "createdAt", updated_at AS "updatedAt"
     FROM tasks WHERE id = $1`,
    [taskId],
  );
  return task ?? null;
}

/**
 * Whom a task's runs act for: its user, with their role as it is now, except that a task an inbound
 * flow started (an outside sender's) acts as a guest unless the flow grants its user's access
 * (`sender_access: user`). Throws when the task is gone.
 */
export async function findTaskRequester(db: DbOrTx, taskId: string): Promise<{ userId: string; role: Role }> {
  const task = await db.task.findUniqueOrThrow({
    where: { id: taskId },
    select: { source: true, user: { select: { id: true, role: true } } },
  });
  const source = task.source as { flow_id?: string; kind?: string } | null;
  if (source?.flow_id && inboundKinds.includes(source.kind as FlowKind)) {
    const flow = await db.flow.findUnique({ where: { id: source.flow_id }, select: { senderAccess: true } });
    if (flow?.senderAccess !== 'user') return { userId: task.user.id, role: 'guest' };
  }
  return { userId: task.user.id, role: task.user.role };
}

export interface TaskListScope {
  orgId: string;
  agentId: string;
  /** Only this user's tasks; undefined for every user's. */
  userId?: string;
}

/** The agent's tasks, newest first, each with the id and status of its latest run. */
export async function listTasksWithLatestRun(db: Db, scope: TaskListScope, limit: number) {
  const tasks = await db.task.findMany({
    where: {
      orgId: scope.orgId,
      agentId: scope.agentId,
      ...(scope.userId === undefined ? {} : { userId: scope.userId }),
    },
    orderBy: newestFirst,
    take: limit,
    include: { runs: { orderBy: newestFirst, take: 1, select: { id: true, status: true } } },
  });
  return tasks.map(({ runs, ...task }) => ({ task, latestRun: runs[0] }));
}

/** Time allowed for stopping workflows and deleting rows while the task row is locked. */
const DELETE_TIMEOUT_MS = 20_000;

export type ActiveRunRef = Pick<Run, 'id' | 'mode'>;

/**
 * Deletes a task; the foreign keys cascade to runs, messages, events and comments.
 * The task row stays locked throughout, so a run start (which locks it too) cannot
 * add a run meanwhile. `stopActive` is called for each of its active runs before the
 * delete; when it throws, nothing is deleted. Returns what was deleted and which
 * runs were active.
 */
export async function deleteTaskLocked(
  db: Db,
  taskId: string,
  stopActive: (run: ActiveRunRef) => Promise<void>,
): Promise<{ runs: number; messages: number; ended: ActiveRunRef[] }> {
  return db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM tasks WHERE id = ${taskId} FOR UPDATE`;
      const ended = await tx.run.findMany({
        where: { taskId, status: { in: activeStatuses } },
        select: { id: true, mode: true },
      });
      for (const run of ended) await stopActive(run);
      const [runs, messages] = await Promise.all([
        tx.run.count({ where: { taskId } }),
        tx.message.count({ where: { taskId } }),
      ]);
      await tx.task.delete({ where: { id: taskId } });
      return { runs, messages, ended };
    },
    { timeout: DELETE_TIMEOUT_MS },
  );
}

/** Which of `ids` are tasks of `orgId` (another org's task of the same id is not among them). */
export async function orgTaskIds(db: Db, orgId: string, ids: string[]): Promise<string[]> {
  const rows = await sqlOfPool(db).query<{ id: string }>(
    'SELECT id FROM tasks WHERE org_id = $1 AND id = ANY($2::text[])',
    [orgId, ids],
  );
  return rows.map((r) => r.id);
}
