import type { Prisma } from '../generated/prisma/client.ts';
import type { Db, Tx } from './client.ts';

export interface NewMessage {
  id: string;
  role: Prisma.MessageCreateManyInput['role'];
  content: string;
  parts?: unknown;
}

/**
 * Appends messages to the end of a task's conversation, numbered after its last
 * position, and marks the task updated. Runs inside the caller's transaction: the
 * start of a run (which holds the task's lock) or a run's progress step.
 */
export async function appendMessages(tx: Tx, taskId: string, runId: string, messages: NewMessage[]): Promise<void> {
  const last = await tx.message.aggregate({ where: { taskId }, _max: { position: true } });
  let position = last._max.position ?? 0;
  await tx.message.createMany({
    data: messages.map((m) => ({
      id: m.id,
      taskId,
      runId,
      role: m.role,
      content: m.content,
      parts: m.parts as Prisma.InputJsonValue | undefined,
      position: ++position,
    })),
  });
  await tx.task.update({ where: { id: taskId }, data: { updatedAt: new Date() } });
}

/** A task's conversation in order. */
export async function listMessages(db: Db, taskId: string) {
  return db.message.findMany({ where: { taskId }, orderBy: { position: 'asc' } });
}

export async function countMessages(db: Db, taskId: string): Promise<number> {
  return db.message.count({ where: { taskId } });
}
