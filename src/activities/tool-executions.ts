import type { Db } from '../db/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { ToolCallInput, ToolOutcome } from '../shared/run-workflow-types.ts';

/**
 * At most one execution of a tool call with side effects (run_command, write_file, …),
 * keyed by (run, tool call). The row is written as `running` before the tool starts and
 * holds the outcome when it ends, so a retried activity:
 * - finds a finished execution and returns its recorded outcome, running nothing;
 * - finds one still `running` (its worker died mid-call, or the outcome could not be
 *   stored): the tool may or may not have taken effect, so it is not run again and the
 *   model is told so (INTERRUPTED), to check before trying again.
 * A call that failed in our own code before or after the tool (an exception, retried by the
 * activity's policy) removes its row: the retry runs it as a fresh attempt.
 */
export async function executeOnce(db: Db, call: ToolCallInput, attempt: number, execute: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  const key = { runId_toolCallId: { runId: call.runId, toolCallId: call.toolCallId } };
  const earlier = await db.toolExecution.findUnique({ where: key });
  if (earlier && earlier.status !== 'running') return earlier.output as ToolOutcome;
  if (earlier) {
    const interrupted: ToolOutcome = {
      ok: false,
      error: {
        code: 'INTERRUPTED',
        message: `The previous attempt of this ${call.name} call was interrupted; it may or may not have taken effect. Check its effect before running it again.`,
      },
    };
    await finish(db, call, 'failed', interrupted);
    return interrupted;
  }
  await db.toolExecution.create({ data: { runId: call.runId, toolCallId: call.toolCallId, toolName: call.name, status: 'running', attempt } });
  let outcome: ToolOutcome;
  try {
    outcome = await execute();
  } catch (err) {
    await db.toolExecution.delete({ where: key }).catch(() => {});
    throw err;
  }
  await finish(db, call, outcome.ok ? 'succeeded' : 'failed', outcome);
  return outcome;
}

async function finish(db: Db, call: ToolCallInput, status: 'succeeded' | 'failed', outcome: ToolOutcome): Promise<void> {
  await db.toolExecution.update({
    where: { runId_toolCallId: { runId: call.runId, toolCallId: call.toolCallId } },
    data: { status, output: JSON.parse(JSON.stringify(outcome)) as Prisma.InputJsonValue, finishedAt: new Date() },
  });
}
