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
 * position, and marks the task updated, in one statement. Runs inside the caller's
 * transaction: the start of a run (which holds the task's lock) or a run's progress step.
 */
export async function appendMessages(tx: Tx, taskId: string, runId: string, messages: NewMessage[]): Promise<void> {
  await tx.$executeRaw`
    WITH touched AS (UPDATE tasks SET updated_at = now() WHERE id = ${taskId})
    INSERT INTO messages (id, task_id, run_id, role, content, parts, position)
    SELECT m.id, ${taskId}, ${runId}, m.role, m.content, m.parts::jsonb,
      (SELECT COALESCE(max(position), 0) FROM messages WHERE task_id = ${taskId}) + m.ord::int
    FROM unnest(${messages.map((m) => m.id)}::text[], ${messages.map((m) => m.role)}::text[], ${messages.map((m) => m.content)}::text[],
      ${messages.map((m) => (m.parts == null ? null : JSON.stringify(m.parts)))}::text[]) WITH ORDINALITY AS m(id, role, content, parts, ord)`;
}

/** A task's conversation in order. */
export async function listMessages(db: Db, taskId: string) {
  return db.message.findMany({ where: { taskId }, orderBy: { position: 'asc' } });
}

export async function countMessages(db: Db, taskId: string): Promise<number> {
  return db.message.count({ where: { taskId } });
}
