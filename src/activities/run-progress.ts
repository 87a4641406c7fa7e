import type { Prisma } from '../generated/prisma/client.ts';
import { appendEventsInTx } from '../db/event-log.ts';
import { newId } from '../shared/ids.ts';
import type { RunEventInput } from '../shared/events.ts';
import type { RunStatus } from '../shared/run-status.ts';
import type { TokenUsage } from '../shared/run-workflow-types.ts';
import type { ActivityDeps } from './deps.ts';

export interface RecordProgressInput {
  runId: string;
  /** Deterministic per workflow step, so a retried activity writes nothing twice. */
  key: string;
  status?: RunStatus;
  events: RunEventInput[];
  /** The final assistant answer, stored as a message of the task's conversation. */
  assistantMessage?: { taskId: string; content: string };
  usage?: TokenUsage;
  result?: Record<string, unknown>;
  error?: Record<string, unknown>;
}

export function createRunProgressActivities({ db }: ActivityDeps) {
  return {
    /**
     * One atomic step of a run: its status, its events and what it produced,
     * in one transaction, so a client never sees an event whose state is not stored.
     */
    async recordProgress(input: RecordProgressInput): Promise<void> {
      await db.$transaction(async (tx) => {
        const { duplicate } = await appendEventsInTx(tx, input.runId, input.events, input.key);
        if (duplicate) return; // an earlier attempt committed this step
        const terminal = input.status === 'completed' || input.status === 'failed' || input.status === 'cancelled';
        await tx.run.update({
          where: { id: input.runId },
          data: {
            ...(input.status ? { status: input.status } : {}),
            ...(terminal ? { finishedAt: new Date() } : {}),
            ...(input.usage ? { inputTokens: input.usage.inputTokens, outputTokens: input.usage.outputTokens } : {}),
            ...(input.result ? { result: input.result as Prisma.InputJsonValue } : {}),
            ...(input.error ? { error: input.error as Prisma.InputJsonValue } : {}),
          },
        });
        if (input.assistantMessage) {
          const { taskId, content } = input.assistantMessage;
          const last = await tx.message.aggregate({ where: { taskId }, _max: { position: true } });
          await tx.message.create({
            data: { id: newId('msg'), taskId, runId: input.runId, role: 'assistant', content, position: (last._max.position ?? 0) + 1 },
          });
          await tx.task.update({ where: { id: taskId }, data: { updatedAt: new Date() } });
        }
      });
    },
  };
}
