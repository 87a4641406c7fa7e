import type { Message, Prisma } from '../generated/prisma/client.ts';
import type { Db, Tx } from './client.ts';
import { sqlOfPool, sqlOfTx, type Sql } from './sql.ts';

export interface NewMessage {
  id: string;
  role: Prisma.MessageCreateManyInput['role'];
  content: string;
  parts?: unknown;
}

/** Appends messages in the caller's Prisma transaction (see appendMessagesWith). */
export function appendMessages(tx: Tx, taskId: string, runId: string, messages: NewMessage[]): Promise<void> {
  return appendMessagesWith(sqlOfTx(tx), taskId, runId, messages);
}

/**
 * Appends messages to the end of a task's conversation, numbered after its last
 * position, and marks the task updated, in one statement. Runs inside the caller's
 * transaction: the start of a run (which holds the task's lock) or a run's progress step.
 */
export async function appendMessagesWith(
  sql: Sql,
  taskId: string,
  runId: string,
  messages: NewMessage[],
): Promise<void> {
  await sql.query(
    `WITH touched AS (UPDATE tasks SET updated_at = now() WHERE id = $1)
     INSERT INTO messages (id, task_id, run_id, role, content, parts, position)
     SELECT m.id, $1, $2, m.role, m.content, m.parts::jsonb, (SELECT COALESCE(max(position), 0) FROM messages WHERE task_id = $1) + m.ord::int
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS m(id, role, content, parts, ord)`,
    [taskId, runId, ...messageColumns(messages)],
  );
}

/** A statement's values for `unnest(ids, roles, contents, parts)` of new messages (here, and a new task's run start). */
export function messageColumns(messages: NewMessage[]): [string[], string[], string[], (string | null)[]] {
  return [
    messages.map((m) => m.id),
    messages.map((m) => m.role),
    messages.map((m) => m.content),
    messages.map((m) => (m.parts == null ? null : JSON.stringify(m.parts))),
  ];
}

/** A task's conversation in order (every model step reads it: on the pg pool). */
export async function listMessages(db: Db, taskId: string): Promise<Message[]> {
  return sqlOfPool(db).query<Message>(
    `SELECT id, task_id AS "taskId", run_id AS "runId", position, role, content, parts, created_at AS "createdAt"
     FROM messages WHERE task_id = $1 ORDER BY position`,
    [taskId],
  );
}

export async function countMessages(db: Db, taskId: string): Promise<number> {
  return db.message.count({ where: { taskId } });
}
