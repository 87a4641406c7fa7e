import type { Prisma } from '../generated/prisma/client.ts';
import { appendEventsInTx } from '../db/event-log.ts';
import { newId } from '../shared/ids.ts';
import type { RunEventInput } from '../shared/events.ts';
import type { RunStatus } from '../shared/run-status.ts';
import type { TokenUsage } from '../shared/run-workflow-types.ts';
import { creditsFor, usageEventData } from '../shared/credits.ts';
import type { ActivityDeps } from './deps.ts';

export interface RecordProgressInput {
  runId: string;
  /** Deterministic per workflow step, so a retried activity writes nothing twice. */
  key: string;
  status?: RunStatus;
  events: RunEventInput[];
  /** The final assistant answer, stored as a message of the task's conversation. */
  assistantMessage?: { taskId: string; content: string };
  result?: Record<string, unknown>;
  error?: Record<string, unknown>;
  /**
   * Set on the terminal step: the run's total usage is priced, a USAGE event is
   * written before `events`, and the org is debited, once per run.
   */
  bill?: { usage: TokenUsage; model?: string };
}

export function createRunProgressActivities({ db, config }: ActivityDeps) {
  return {
    /**
     * One atomic step of a run: its status, its events and what it produced,
     * in one transaction, so a client never sees an event whose state is not stored.
     */
    async recordProgress(input: RecordProgressInput): Promise<void> {
      await db.$transaction(async (tx) => {
        const credits = input.bill ? creditsFor(input.bill.usage, config.creditsPer1kTokens) : 0;
        const events: RunEventInput[] = input.bill
          ? [{ type: 'CUSTOM', name: 'USAGE', data: usageEventData(input.bill.usage, credits, input.bill.model) }, ...input.events]
          : input.events;
        const { duplicate } = await appendEventsInTx(tx, input.runId, events, input.key);
        if (duplicate) return; // an earlier attempt committed this step
        if (input.bill) await debitOnce(tx, input.runId, input.bill.usage, credits);
        const terminal = input.status === 'completed' || input.status === 'failed' || input.status === 'cancelled';
        await tx.run.update({
          where: { id: input.runId },
          data: {
            ...(input.status ? { status: input.status } : {}),
            ...(terminal ? { finishedAt: new Date() } : {}),
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

/** Records the run's usage and debits its org, unless this run was billed already. */
async function debitOnce(tx: Prisma.TransactionClient, runId: string, usage: TokenUsage, credits: number): Promise<void> {
  const billed = await tx.$executeRaw`
    UPDATE runs SET billed_at = now(), credits_used = ${credits},
      input_tokens = ${usage.inputTokens}, output_tokens = ${usage.outputTokens}
    WHERE id = ${runId} AND billed_at IS NULL`;
  if (billed === 0) return;
  await tx.$executeRaw`
    UPDATE orgs SET credit_balance = credit_balance - ${credits}
    WHERE id = (SELECT t.org_id FROM runs r JOIN tasks t ON t.id = r.task_id WHERE r.id = ${runId})`;
}
