import type { Client } from '@temporalio/client';
import type { Caller } from '../../auth/caller.ts';
import { isInputRequestOpen } from '../../db/approvals.ts';
import type { Db } from '../../db/client.ts';
import { answerElicitation, findElicitation, type StoredElicitation } from '../../db/elicitations.ts';
import { elicitationReply } from '../../shared/elicitation.ts';
import type { Answer, InputType } from '../../shared/input-requests.ts';
import { conflict, invalidField, isDomainError } from '../../shared/domain-error.ts';
import { answerUpdate } from '../../workflows/run-messages.ts';
import { sendRunUpdate } from './run-updates.ts';

export interface ParsedAnswer {
  requestId: string;
  runId: string;
  inputType: InputType;
  answer: Answer;
}

const CATCH_UP_MS = 250;
const CATCH_UP_LIMIT_MS = 10_000;

/**
 * Sends an answer, allowing for a workflow that has not caught up with what the client was shown.
 * The question is stored (and shown) by the workflow task that asks it; if that worker dies before
 * the task completes, the next worker rebuilds the run and handles the answer in the same step as
 * the work that leads to the question, and the answer can be checked before the question exists
 * again (409 "not pending"). While the database still lists the request as open on an active run,
 * the answer is sent again, every 250 ms for up to 10 s; a request that was really answered or
 * ended gets its 409 at once.
 */
async function sendAnswerWhenCaughtUp<T>(db: Db, requestId: string, send: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + CATCH_UP_LIMIT_MS;
  for (;;) {
    try {
      return await send();
    } catch (err) {
      const notPendingYet =
        isDomainError(err, 'conflict') && Date.now() < deadline && (await isInputRequestOpen(db, requestId));
      if (!notPendingYet) throw err;
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP_MS));
    }
  }
}

/**
 * Answers a pending request of a run as `caller` (POST /api/tasks/{task_id}/input and POST
 * /api/approvals/{approval_id}/decide alike): the run's validator decides, and the answer is sent
 * again while the workflow catches up with a question the client was already shown.
 */
export async function answerRequest(
  deps: { db: Db; temporal: Client },
  caller: Caller,
  answer: ParsedAnswer,
): Promise<{ message: string }> {
  const elicitation = await findElicitation(deps.db, answer.requestId);
  if (elicitation) return answerElicitationRequest(deps.db, caller, elicitation, answer);
  const update = { ...answer, answeredBy: { userId: caller.userId, role: caller.role } };
  return sendAnswerWhenCaughtUp(deps.db, answer.requestId, () =>
    sendRunUpdate(deps.temporal, answer.runId, answerUpdate, update),
  );
}

/**
 * A tool server's question (MCP elicitation) is answered here, not through the workflow: the run's
 * workflow waits for the tool call, and the call's activity waits for this row (docs/tools.md). The
 * answer is checked as the run's own are, and against the schema the server asked for.
 */
async function answerElicitationRequest(
  db: Db,
  caller: Caller,
  stored: StoredElicitation,
  answer: ParsedAnswer,
): Promise<{ message: string }> {
  const { request } = stored;
  if (stored.runId !== answer.runId || stored.status !== 'pending')
    throw conflict(`Request ${request.requestId} is not pending on run ${answer.runId} (already answered, or stale)`);
  if (request.inputType !== answer.inputType)
    throw invalidField(
      ['body', 'input_type'],
      `Request ${request.requestId} expects input_type ${request.inputType}, not ${answer.inputType}`,
    );
  const checked = elicitationReply(request, answer.answer);
  if ('problem' in checked)
    throw invalidField(['body', ...checked.problem.loc], checked.problem.msg, checked.problem.type);
  if (!(await answerElicitation(db, request.requestId, answer.answer, caller.userId)))
    throw conflict(`Request ${request.requestId} is not pending on run ${answer.runId} (already answered, or stale)`);
  const server = request.details.elicitation!.server;
  return {
    message:
      checked.reply.action === 'accept'
        ? `Answer sent to tool server ${server}; the tool call continues`
        : `Declined for tool server ${server}; the tool call continues`,
  };
}
