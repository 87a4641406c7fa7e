import type { Db } from '../db/client.ts';
import {
  deleteToolExecution,
  findToolExecution,
  finishToolExecution,
  insertRunningToolExecution,
} from '../db/tool-executions.ts';
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
export async function executeOnce(
  db: Db,
  call: ToolCallInput,
  attempt: number,
  execute: () => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const earlier = await findToolExecution(db, call);
  if (earlier && earlier.status !== 'running') return earlier.output as ToolOutcome;
  if (earlier) {
    const interrupted: ToolOutcome = {
      ok: false,
      error: {
        code: 'INTERRUPTED',
        message: `The previous attempt of this ${call.name} call was interrupted; it may or may not have taken effect. Check its effect before running it again.`,
      },
    };
    await finishToolExecution(db, call, 'failed', interrupted);
    return interrupted;
  }
  await insertRunningToolExecution(db, {
    runId: call.runId,
    toolCallId: call.toolCallId,
    toolName: call.name,
    attempt,
  });
  let outcome: ToolOutcome;
  try {
    outcome = await execute();
  } catch (err) {
    await deleteToolExecution(db, call).catch(() => {});
    throw err;
  }
  await finishToolExecution(db, call, outcome.ok ? 'succeeded' : 'failed', outcome);
  return outcome;
}
