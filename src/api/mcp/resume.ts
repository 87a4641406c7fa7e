import { AsyncLocalStorage } from 'node:async_hooks';
import type { Response } from 'express';
import type { EventStore } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../../auth/caller.ts';
import { findMcpCall, recordMcpCall } from '../../db/mcp-sessions.ts';
import { DomainError } from '../../shared/domain-error.ts';
import type { ApiDeps } from '../deps.ts';
import { followAgentCall, usableAgentFor } from '../services/agent-calls.ts';
import { resultOf } from './results.ts';
import { progressNotification, ProgressReporter } from './progress.ts';

/*
 * Resumable streams on the durable event log. A tool call's SSE events carry the id
 * `c:<request key>:<seq>`: the call's JSON-RPC request id and the seq of the last run event the
 * stream reflected. The call's run is kept in mcp_calls, so a GET with that Last-Event-ID on any
 * replica (after the api that held the call died, too) follows the run from that seq and sends the
 * remaining progress and the result, built from the log exactly as the live call builds them.
 */

const KEEP_ALIVE_MS = 15_000;

/** The first request of the POST being handled: the stream its messages go to. */
const postContext = new AsyncLocalStorage<{ requestId: RequestId | undefined }>();

export function withPostContext<T>(body: unknown, fn: () => Promise<T>): Promise<T> {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  const request = messages.find((m) => {
    const message = m as { id?: unknown; method?: unknown } | null;
    return typeof message?.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number');
  }) as { id: RequestId } | undefined;
  return postContext.run({ requestId: request?.id }, fn);
}

/** The key of a JSON-RPC request id in event ids and mcp_calls: its JSON. */
export function requestKeyOf(id: RequestId): string {
  return JSON.stringify(id);
}

export function callEventId(requestKey: string, seq: number): string {
  return `c:${Buffer.from(requestKey).toString('base64url')}:${seq}`;
}

/** The call and seq an event id names, or undefined for ids of other streams. */
export function parseCallEventId(id: string): { requestId: RequestId; requestKey: string; seq: number } | undefined {
  const match = /^c:([A-Za-z0-9_-]{1,200}):(\d{1,10})$/.exec(id);
  if (!match) return undefined;
  try {
    const requestKey = Buffer.from(match[1]!, 'base64url').toString();
    const requestId = JSON.parse(requestKey) as unknown;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return undefined;
    return { requestId, requestKey, seq: Number(match[2]) };
  } catch {
    return undefined;
  }
}

/**
 * The SDK transport's EventStore, storing nothing: the run's event log is the store. An event's id
 * is computed from the message and the POST it answers; resuming is served by `resumeCall` for
 * call ids, and a standalone stream (server notifications, none of them kept) is opened afresh.
 */
export class RunLogEventIds implements EventStore {
  /** Per call (request key): the seq of the last run event its stream reflected. */
  private readonly cursors = new Map<string, number>();
  private standalone = 0;

  async storeEvent(_streamId: string, message: JSONRPCMessage): Promise<string> {
    const response = 'id' in message && ('result' in message || 'error' in message);
    const requestId = response ? (message as { id: RequestId }).id : postContext.getStore()?.requestId;
    if (requestId === undefined) return `s:${++this.standalone}`;
    const key = requestKeyOf(requestId);
    let seq = this.cursors.get(key) ?? 0;
    if ('method' in message && message.method === 'notifications/progress') {
      seq = Math.max(seq, Number((message.params as { progress?: unknown }).progress) || 0);
    }
    if (response) this.cursors.delete(key);
    else this.cursors.set(key, seq);
    return callEventId(key, seq);
  }

  async replayEventsAfter(): Promise<string> {
    throw new Error('resumption is served from the run event log (resumeCall), never replayed by the transport');
  }
}

/** Records the run a session's call follows, for resuming its stream and as the session's MCP task. */
export async function recordCall(
  deps: ApiDeps,
  call: { sessionId: string; requestId: RequestId; progressToken?: string | number; agentId: string },
  run: { runId: string; taskId: string },
): Promise<void> {
  await recordMcpCall(deps.db, {
    sessionId: call.sessionId,
    requestId: requestKeyOf(call.requestId),
    progressToken: call.progressToken,
    agentId: call.agentId,
    ...run,
  });
}

/**
 * Serves a GET with a call's Last-Event-ID: an SSE stream with the call's progress after that
 * event and its result, from the run's log. A question the run waits on ends the call with
 * `input_required` (a resumed stream has no request of its own to elicit on).
 */
export async function resumeCall(
  deps: ApiDeps,
  caller: Caller,
  sessionId: string,
  from: { requestId: RequestId; requestKey: string; seq: number },
  res: Response,
): Promise<void> {
  const call = await findMcpCall(deps.db, sessionId, from.requestKey);
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
    'mcp-session-id': sessionId,
  });
  res.flushHeaders();
  const write = (seq: number, message: JSONRPCMessage) =>
    void res.write(`event: message\nid: ${callEventId(from.requestKey, seq)}\ndata: ${JSON.stringify(message)}\n\n`);
  const fail = (message: string) => {
    write(from.seq, { jsonrpc: '2.0', id: from.requestId, error: { code: -32603, message } });
    res.end();
  };
  if (!call) return fail('This request cannot be resumed (no run was started for it); send it again');
  const controller = new AbortController();
  const keepAlive = setInterval(() => res.write(': keepalive\n\n'), KEEP_ALIVE_MS);
  // This api leaving ends the stream: the client resumes on another replica from its last event.
  const leave = () => res.end();
  deps.drain.stopSignal.addEventListener('abort', leave, { once: true });
  res.on('close', () => {
    clearInterval(keepAlive);
    deps.drain.stopSignal.removeEventListener('abort', leave);
    controller.abort();
  });
  try {
    const agent = await usableAgentFor(deps, caller, call.agentId);
    const token = (call.progressToken ?? undefined) as string | number | undefined;
    let last = from.seq;
    const progress = new ProgressReporter(token, (seq, message) => {
      last = Math.max(last, seq);
      if (token !== undefined) write(seq, { jsonrpc: '2.0', ...progressNotification(token, seq, message) });
    });
    const run = { runId: call.runId, taskId: call.taskId };
    const outcome = await followAgentCall(deps, caller, agent, run, from.seq, {
      signal: controller.signal,
      onEvent: (event, seq) => progress.event(event, seq),
    });
    await progress.flush();
    if (controller.signal.aborted) return;
    write(last, { jsonrpc: '2.0', id: from.requestId, result: resultOf(outcome) });
    res.end();
  } catch (err) {
    if (err instanceof DomainError) return fail(err.message);
    throw err;
  }
}
