import type { Prisma, ToolExecution } from '../generated/prisma/client.ts';
import type { Db } from './client.ts';

export type { ToolExecution };

/** A tool call of a run: the key of its `tool_executions` row. */
export interface ToolCallRef {
  runId: string;
  toolCallId: string;
}

const keyOf = ({ runId, toolCallId }: ToolCallRef) => ({ runId_toolCallId: { runId, toolCallId } });

export async function findToolExecution(db: Db, call: ToolCallRef): Promise<ToolExecution | null> {
  return db.toolExecution.findUnique({ where: keyOf(call) });
}

/** The execution as started: `running`, before the tool runs. Fails when the call has one already. */
export async function insertRunningToolExecution(
  db: Db,
  call: ToolCallRef & { toolName: string; attempt: number },
): Promise<void> {
  await db.toolExecution.create({
    data: {
      runId: call.runId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      status: 'running',
      attempt: call.attempt,
    },
  });
}

/** Stores how the execution ended; the output as JSON (undefined fields dropped). */
export async function finishToolExecution(
  db: Db,
  call: ToolCallRef,
  status: 'succeeded' | 'failed',
  output: unknown,
): Promise<void> {
  await db.toolExecution.update({
    where: keyOf(call),
    data: { status, output: JSON.parse(JSON.stringify(output)) as Prisma.InputJsonValue, finishedAt: new Date() },
  });
}

/** Removes the execution; throws when there is none. */
export async function deleteToolExecution(db: Db, call: ToolCallRef): Promise<void> {
  await db.toolExecution.delete({ where: keyOf(call) });
}
