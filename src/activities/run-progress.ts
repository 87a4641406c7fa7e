import type { Prisma } from '../generated/prisma/client.ts';
import type { Tx } from '../db/client.ts';
import { appendMessages } from '../db/conversation.ts';
import { appendEventsInTx } from '../db/event-log.ts';
import { createHash } from 'node:crypto';
import { nonRetryableIfRunGone } from './run-gone.ts';
import type { RunEventInput } from '../shared/events.ts';
import type { RunStatus } from '../shared/run-status.ts';
import type { TokenUsage } from '../shared/run-workflow-types.ts';
import { addUsage, creditsFor, usageEventData, type StepUsage } from '../shared/credits.ts';
import { discardedUsage } from './model-attempts.ts';
import type { ActivityDeps } from './deps.ts';
import { countRunEnded } from './metrics.ts';
import { openRequestInTx, resolveRequestInTx, type OpenRequest, type ResolveRequest } from './human-requests.ts';
import type { MessageParts } from '../shared/message-parts.ts';

export interface RecordProgressInput {
  runId: string;
  /** Deterministic per workflow step, so a retried activity writes nothing twice. */
  key: string;
  status?: RunStatus;
  events: RunEventInput[];
  /** A message that joins the task's conversation (an assistant answer, a steering comment). */
  message?: { taskId: string; role: 'user' | 'assistant' | 'tool' | 'system'; content: string; parts?: MessageParts };
  /** A question for a human that the run now waits on. */
  openRequest?: OpenRequest;
  /** The end of such a wait: answered, dismissed, or cancelled with the run. */
  resolveRequest?: ResolveRequest;
  result?: Record<string, unknown>;
  error?: Record<string, unknown>;
  /**
   * Set on the terminal step: the run's total usage is priced, a USAGE event is
   * written before `events`, and the org is debited, once per run.
   */
  bill?: { usage: TokenUsage; model?: string; steps?: StepUsage[] };
}

export function createRunProgressActivities({ db, config }: ActivityDeps) {
  return {
    /**
     * One atomic step of a run: its status, its events and what it produced,
     * in one transaction, so a client never sees an event whose state is not stored.
     */
    async recordProgress(input: RecordProgressInput): Promise<void> {
      let ended: { status: string; mode: string } | undefined;
      await nonRetryableIfRunGone(() => db.$transaction(async (tx) => {
        // Billed: the steps' tokens plus those of attempts a retry discarded (model-attempts.ts).
        const discarded = input.bill ? await discardedUsage(tx, input.runId) : undefined;
        const billed = input.bill && discarded ? addUsage(input.bill.usage, discarded) : undefined;
        const credits = billed ? creditsFor(billed, config.creditsPer1kTokens) : 0;
        const events: RunEventInput[] =
          input.bill && billed
            ? [{ type: 'CUSTOM', name: 'USAGE', data: usageEventData(billed, credits, input.bill.model, input.bill.steps, discarded) }, ...input.events]
            : input.events;
        const { duplicate } = await appendEventsInTx(tx, input.runId, events, input.key);
        if (duplicate) return; // an earlier attempt committed this step
        if (billed) await debitOnce(tx, input.runId, billed, credits);
        if (input.openRequest) await openRequestInTx(tx, input.runId, input.openRequest);
        if (input.resolveRequest) await resolveRequestInTx(tx, input.resolveRequest);
        const terminal = input.status === 'completed' || input.status === 'failed' || input.status === 'cancelled';
        const run = await tx.run.update({
          where: { id: input.runId },
          data: {
            ...(input.status ? { status: input.status } : {}),
            ...(terminal ? { finishedAt: new Date() } : {}),
            ...(input.result ? { result: input.result as Prisma.InputJsonValue } : {}),
            ...(input.error ? { error: input.error as Prisma.InputJsonValue } : {}),
          },
          select: { mode: true },
        });
        if (terminal) ended = { status: input.status!, mode: run.mode };
        // The id comes from (run, key), so a retried step finds its message instead of adding another.
        const messageId = `msg_${createHash('sha256').update(`${input.runId}\n${input.key}`).digest('hex').slice(0, 32)}`;
        // A step with events was deduplicated above by their key; one with none checks for its message.
        if (input.message && (input.events.length > 0 || !(await tx.message.findUnique({ where: { id: messageId }, select: { id: true } })))) {
          const { taskId, role, content, parts } = input.message;
          await appendMessages(tx, taskId, input.runId, [{ id: messageId, role, content, parts }]);
        }
      }));
      // After the commit, and only by the step that stored the end (a retry finds it a duplicate).
      if (ended) countRunEnded(ended.status, ended.mode);
    },
  };
}

/** Records the run's usage and debits its org, unless this run was billed already. */
async function debitOnce(tx: Tx, runId: string, usage: TokenUsage, credits: number): Promise<void> {
  const billed = await tx.$executeRaw`
    UPDATE runs SET billed_at = now(), credits_used = ${credits},
      input_tokens = ${usage.inputTokens}, output_tokens = ${usage.outputTokens}
    WHERE id = ${runId} AND billed_at IS NULL`;
  if (billed === 0) return;
  await tx.$executeRaw`
    UPDATE orgs SET credit_balance = credit_balance - ${credits}
    WHERE id = (SELECT t.org_id FROM runs r JOIN tasks t ON t.id = r.task_id WHERE r.id = ${runId})`;
}
