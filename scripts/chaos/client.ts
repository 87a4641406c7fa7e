import { randomUUID } from 'node:crypto';
import { createParser } from 'eventsource-parser';
import { parseEventId } from '../../src/api/streaming/event-ids.ts';

export interface Caller {
  apiUrl: string;
  token: string;
  agentId: string;
}

/** One event as the client received it, in arrival order. */
export interface Received {
  seq: number;
  event: { type: string; [key: string]: unknown };
}

/** Everything a client saw of one run, across all its reconnects. */
export interface ClientRun {
  idempotencyKey: string;
  taskId?: string;
  runId?: string;
  received: Received[];
  /** Times the client had to start again: POST retried (no X-Task-Id yet) or stream resumed. */
  postRetries: number;
  resumes: number;
  /** A frame whose id named another run than X-Run-Id. */
  foreignFrames: number;
  terminal?: Received['event'];
  errors: string[];
}

/** With heartbeats every few seconds, this long without a byte means the connection is dead. */
const STALL_MS = 30_000;

/**
 * Starts a streamed run and follows it to its terminal event whatever fails:
 * until the response names its task (X-Task-Id) the POST is retried with the
 * same Idempotency-Key (so the run is started once); after that the client
 * resumes on GET /api/tasks/{task_id}/stream with `Last-Event-ID` = the last id it got.
 */
export async function followRun(who: Caller, message: string, deadline: number): Promise<ClientRun> {
  const run: ClientRun = {
    idempotencyKey: randomUUID(),
    received: [],
    postRetries: 0,
    resumes: 0,
    foreignFrames: 0,
    errors: [],
  };
  let backoffMs = 250;
  let lastId: string | undefined;
  let attempt = 0;
  while (!run.terminal && Date.now() < deadline) {
    if (attempt++ > 0) {
      if (run.taskId) run.resumes++;
      else run.postRetries++;
      await new Promise((r) => setTimeout(r, backoffMs));
      backoffMs = Math.min(backoffMs * 2, 4000);
    }
    const abort = new AbortController();
    let stall = setTimeout(() => abort.abort(new Error('stream stalled')), STALL_MS);
    const alive = () => {
      clearTimeout(stall);
      stall = setTimeout(() => abort.abort(new Error('stream stalled')), STALL_MS);
    };
    try {
      const res = run.taskId
        ? await resume(who, run.taskId, lastId, abort.signal)
        : await post(who, run.idempotencyKey, message, abort.signal);
      if (res.status !== 200 || !res.body) {
        run.errors.push(`${run.taskId ? 'resume' : 'POST'} ${res.status}: ${(await res.text()).slice(0, 200)}`);
        continue;
      }
      run.taskId ??= res.headers.get('x-task-id') ?? undefined;
      run.runId ??= res.headers.get('x-run-id') ?? undefined;
      backoffMs = 250;
      const parser = createParser({
        onEvent(msg) {
          if (!msg.id) return; // HEARTBEAT: not stored, no id
          const id = parseEventId(msg.id);
          if (!id || id.runId !== run.runId) {
            run.foreignFrames++;
            return;
          }
          const event = JSON.parse(msg.data) as Received['event'];
          run.received.push({ seq: id.seq, event });
          lastId = msg.id;
          if (event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR') run.terminal = event;
        },
      });
      const decoder = new TextDecoder();
      for await (const chunk of res.body) {
        alive();
        parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
      }
      if (!run.terminal) run.errors.push('stream ended before the terminal event');
    } catch (err) {
      run.errors.push(`${run.taskId ? 'stream' : 'POST'}: ${(err as Error).message}`);
    } finally {
      clearTimeout(stall);
      abort.abort();
    }
  }
  return run;
}

function post(who: Caller, key: string, message: string, signal: AbortSignal): Promise<Response> {
  return fetch(`${who.apiUrl}/api/run`, {
    method: 'POST',
    headers: { ...auth(who), 'Content-Type': 'application/json', 'Idempotency-Key': key },
    body: JSON.stringify({ messages: [{ role: 'user', content: message }], mode: 'fast' }),
    signal,
  });
}

function resume(who: Caller, taskId: string, lastId: string | undefined, signal: AbortSignal): Promise<Response> {
  return fetch(`${who.apiUrl}/api/tasks/${taskId}/stream`, {
    headers: { ...auth(who), ...(lastId ? { 'Last-Event-ID': lastId } : {}) },
    signal,
  });
}

export function auth(who: Caller): Record<string, string> {
  return { Authorization: `Bearer ${who.token}`, 'X-Agent-Id': who.agentId };
}
