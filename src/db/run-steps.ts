import { createHash } from 'node:crypto';
import type { Prisma } from '../generated/prisma/client.ts';
import type { RunEventInput } from '../shared/events.ts';
import type { MessageParts } from '../shared/message-parts.ts';
import type { RunStatus } from '../shared/run-status.ts';
import type { TokenUsage } from '../shared/run-workflow-types.ts';
import { insertInputRequest, resolveInputRequest, type OpenRequest, type ResolveRequest } from './approvals.ts';
import { discardedUsage } from './model-attempts.ts';
import type { Db, Tx } from './client.ts';
import { appendMessages } from './conversation.ts';
import { appendEventsInTx } from './event-log.ts';

/** One atomic step of a run, as the workflow describes it. */
export interface RunStep {
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
}

/** The run's bill, priced from its total usage (its steps' tokens plus those of discarded attempts). */
export interface Bill {
  usage: TokenUsage;
  credits: number;
  /** The USAGE event, written before the step's own events. */
  event: RunEventInput;
}

const terminalStatuses: RunStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * Stores a run step in one transaction: its events (idempotent by key), its status and
 * outcome, the human request it opens or resolves, its conversation message and, on the
 * terminal step, the bill (`price` gets the discarded attempts' tokens). Returns the run's
 * mode when this call stored the run's end, undefined otherwise (also for a repeated step).
 */
export async function storeRunStep(db: Db, step: RunStep, price?: (discarded: TokenUsage) => Bill): Promise<{ endedMode?: string }> {
  return db.$transaction(async (tx) => {
    // A move that arrives after the run ended (a model step storing `executing` while the run was
    // cancelled under it) changes nothing: an ended run's status and log are final.
    if (step.status && !terminalStatuses.includes(step.status) && (await hasEnded(tx, step.runId))) return {};
    const bill = price ? price(await discardedUsage(tx, step.runId)) : undefined;
    const events = bill ? [bill.event, ...step.events] : step.events;
    const { duplicate } = await appendEventsInTx(tx, step.runId, events, step.key);
    if (duplicate) return {}; // an earlier attempt committed this step
    if (bill) await debitOnce(tx, step.runId, bill);
    if (step.openRequest) await insertInputRequest(tx, step.runId, step.openRequest);
    if (step.resolveRequest) await resolveInputRequest(tx, step.resolveRequest);
    const terminal = step.status !== undefined && terminalStatuses.includes(step.status);
    const run = await tx.run.update({
      where: { id: step.runId },
      data: {
        ...(step.status ? { status: step.status } : {}),
        ...(terminal ? { finishedAt: new Date() } : {}),
        ...(step.result ? { result: step.result as Prisma.InputJsonValue } : {}),
        ...(step.error ? { error: step.error as Prisma.InputJsonValue } : {}),
      },
      select: { mode: true },
    });
    if (step.message) await storeStepMessage(tx, step, step.message);
    return terminal ? { endedMode: run.mode } : {};
  });
}

async function hasEnded(tx: Tx, runId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ status: RunStatus }[]>`SELECT status FROM runs WHERE id = ${runId} FOR UPDATE`;
  return rows.length > 0 && terminalStatuses.includes(rows[0]!.status);
}

/** The message id comes from (run, key), so a retried step finds its message instead of adding another. */
async function storeStepMessage(tx: Tx, step: RunStep, message: NonNullable<RunStep['message']>): Promise<void> {
  const id = `msg_${createHash('sha256').update(`${step.runId}\n${step.key}`).digest('hex').slice(0, 32)}`;
  // A step with events was deduplicated by their key; one with none checks for its message.
  if (step.events.length === 0 && (await tx.message.findUnique({ where: { id }, select: { id: true } }))) return;
  const { taskId, role, content, parts } = message;
  await appendMessages(tx, taskId, step.runId, [{ id, role, content, parts }]);
}

/** Records the run's usage and debits its org, unless this run was billed already. */
async function debitOnce(tx: Tx, runId: string, bill: Bill): Promise<void> {
  const billed = await tx.$executeRaw`
    UPDATE runs SET billed_at = now(), credits_used = ${bill.credits},
      input_tokens = ${bill.usage.inputTokens}, output_tokens = ${bill.usage.outputTokens}
    WHERE id = ${runId} AND billed_at IS NULL`;
  if (billed === 0) return;
  await tx.$executeRaw`
    UPDATE orgs SET credit_balance = credit_balance - ${bill.credits}
    WHERE id = (SELECT t.org_id FROM runs r JOIN tasks t ON t.id = r.task_id WHERE r.id = ${runId})`;
}
