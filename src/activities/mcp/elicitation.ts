import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { markInfrastructure } from '../../connections/transient-errors.ts';
import { appendEvents } from '../../db/event-log.ts';
import { closeElicitation, closeLeftElicitations, findElicitation } from '../../db/elicitations.ts';
import { storeRunStep } from '../../db/run-steps.ts';
import { elicitationReply, elicitationRequest, type RequestedSchema } from '../../shared/elicitation.ts';
import type { RunEventInput } from '../../shared/events.ts';
import { newId } from '../../shared/ids.ts';
import { describeAnswer, type PendingRequest } from '../../shared/input-requests.ts';
import type { ActivityDeps } from '../deps.ts';
import type { ElicitHandler } from './connect.ts';
import type { ServerToolCallInput } from './tool-server-activities.ts';

/** How often a waiting call looks for the answer (the api stores it in input_requests). */
const POLL_MS = 250;

const status = (data: Record<string, unknown>): RunEventInput => ({ type: 'CUSTOM', name: 'SYSTEM_STATUS', data });

/**
 * Answers a server's `elicitation/create` during a tool call by asking the run's user: the request
 * is stored and shown (USER_INPUT_REQUIRED) like the run's own questions, and the call waits (it
 * heartbeats meanwhile) until the api stores the answer, the window ends (`deadline`, before the
 * call's own timeout: then it declines, and says so in the run) or the call ends (`callSignal`: the
 * run cancelled) or the server withdraws the request (cancel).
 */
export function elicitationHandler(
  deps: ActivityDeps,
  call: ServerToolCallInput,
  deadline: number,
  callSignal: AbortSignal,
): ElicitHandler {
  const { db } = deps;
  return async (params: ElicitRequest['params'], requestSignal: AbortSignal): Promise<ElicitResult> => {
    const signal = AbortSignal.any([requestSignal, callSignal]);
    const about = { request_id: '', tool_call_id: call.toolCallId, tool: call.name };
    const source = { server: call.server.name, tool: call.tool, tool_call_id: call.toolCallId };
    const asked =
      params.mode === 'url'
        ? undefined
        : elicitationRequest(params.message, params.requestedSchema as RequestedSchema, source);
    if (!asked) {
      const reason = 'only form requests with a flat schema are supported';
      await appendEvents(db, call.runId, [status({ status: 'elicitation_declined', ...about, reason })]).catch(
        markInfrastructure,
      );
      return { action: 'decline' };
    }
    await closeLeftElicitations(db, call.runId, call.toolCallId).catch(markInfrastructure);
    const request: PendingRequest = {
      requestId: newId('req'),
      ...asked,
      toolCallId: call.toolCallId,
      sensitive: false,
    };
    about.request_id = request.requestId;
    const event: RunEventInput = {
      type: 'CUSTOM',
      name: 'USER_INPUT_REQUIRED',
      data: {
        request_id: request.requestId,
        run_id: call.runId,
        input_type: request.inputType,
        prompt: request.prompt,
        ...request.details,
        tool_call_id: call.toolCallId,
      },
    };
    const opened = await storeRunStep(db, {
      runId: call.runId,
      key: `elicit:${request.requestId}`,
      events: [event],
      openRequest: { request, taskId: call.taskId },
    }).catch(markInfrastructure);
    if (opened.refused) return { action: 'cancel' }; // the run ended meanwhile

    for (;;) {
      const stored = await findElicitation(db, request.requestId).catch(markInfrastructure);
      if (stored && stored.status !== 'pending') {
        if (!stored.answer) return { action: 'cancel' }; // closed by a later attempt of the call
        const replied = elicitationReply(request, stored.answer);
        const reply = 'reply' in replied ? replied.reply : ({ action: 'decline' } as const);
        const told = stored.answer.cancelled ? 'input_dismissed' : 'input_received';
        await appendEvents(
          db,
          call.runId,
          [status({ status: told, ...about, ...describeAnswer(request, stored.answer), action: reply.action })],
          `answer:${request.requestId}`,
        ).catch(markInfrastructure);
        return reply;
      }
      const ended = signal.aborted ? 'cancelled' : Date.now() >= deadline ? 'expired' : undefined;
      if (ended) {
        const seconds = call.server.timeoutSeconds;
        const event =
          ended === 'expired'
            ? status({
                status: 'input_expired',
                ...about,
                action: 'decline',
                reason: `no answer within the tool call's ${seconds} s: declined`,
              })
            : status({ status: 'input_cancelled', ...about, action: 'cancel' });
        // An answer that got in first still counts: the loop reads it.
        if (await closeElicitation(db, call.runId, request.requestId, [event]).catch(markInfrastructure))
          return { action: ended === 'expired' ? 'decline' : 'cancel' };
        continue;
      }
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())), signal);
    }
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
