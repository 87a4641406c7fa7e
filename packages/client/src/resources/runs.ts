/** `client.runs`: start runs (streamed or in the background), wait for them, page their history, read their status. */
import type { RetryPolicy } from '../retry.ts';
import { sleep } from '../retry.ts';
import { RunStream, type StreamPosition } from '../run-stream.ts';
import type { Transport } from '../transport.ts';
import type {
  BackgroundRun,
  CallOptions,
  RunEventPage,
  RunEventRecord,
  RunList,
  RunListFilter,
  RunListStatus,
  RunRequest,
  RunStatusResponse,
  TerminalEvent,
} from '../types.ts';

export interface StreamRunOptions {
  signal?: AbortSignal;
  /** Yield HEARTBEAT events too (default false). */
  heartbeats?: boolean;
}

export interface RunListOptions extends Omit<CallOptions, 'agentId'>, RunListFilter {
  /** One status or several (sent as a comma list); `needs_you` is the runs waiting on your answer. */
  status?: RunListStatus | RunListStatus[];
}

export interface EventsOptions extends CallOptions {
  /** Page size, 1 to 1000 (server default 100). */
  limit?: number;
  /** Start after this opaque cursor (a `next_cursor` of an earlier page). */
  cursor?: string;
  /**
   * Keep polling a live run until its history ends (default true); false stops at the current tail.
   */
  follow?: boolean;
  /** Wait between polls of a live run's tail, in ms (default 1000). */
  pollIntervalMs?: number;
}

function runBody(req: RunRequest, stream: boolean) {
  const messages =
    req.messages ?? (req.message !== undefined ? [{ role: 'user' as const, content: req.message }] : undefined);
  if (!messages) throw new TypeError('A run request needs `message` or `messages`');
  return {
    messages,
    task_id: req.taskId,
    mode: req.mode,
    timezone: req.timezone,
    multitask_strategy: req.multitaskStrategy,
    stream,
  };
}

/** A random UUID (crypto.randomUUID exists in browsers and Node >= 19). */
function newKey(): string {
  return globalThis.crypto.randomUUID();
}

function isTerminalRecord(record: RunEventRecord): boolean {
  return record.event_type === 'RUN_FINISHED' || record.event_type === 'RUN_ERROR';
}

export class Runs {
  constructor(
    private readonly transport: Transport,
    private readonly retry: RetryPolicy,
    private readonly clientName: string,
  ) {}

  /**
   * Starts a run and streams its events (POST /api/run). The request carries an `Idempotency-Key`, so
   * a retry never starts a second run; a broken stream resumes on the task stream with `Last-Event-ID`.
   */
  stream(req: RunRequest & StreamRunOptions): RunStream {
    const body = runBody(req, true);
    const key = req.idempotencyKey ?? newKey();
    const post = (signal: AbortSignal | undefined, lastEventId?: string) =>
      this.transport.send({
        method: 'POST',
        path: '/api/run',
        body,
        agentId: req.agentId,
        signal,
        // A resume starts nothing; the key would only tie the resume to the original request.
        headers: lastEventId
          ? { 'last-event-id': lastEventId }
          : { 'idempotency-key': key, 'x-agent-run-client': this.clientName },
        idempotent: true,
      });
    const connect = async (position: StreamPosition, signal: AbortSignal | undefined): Promise<Response> => {
      // Nothing received yet: the same request again, which the key turns into a replay from event 1.
      if (!position.lastEventId || !position.taskId) return post(signal, position.lastEventId);
      const res = await this.transport.send({
        method: 'GET',
        path: `/api/tasks/${encodeURIComponent(position.taskId)}/stream`,
        headers: { 'last-event-id': position.lastEventId },
        agentId: req.agentId,
        signal,
        idempotent: true,
      });
      const following = res.headers.get('x-run-id');
      if (!following || following === position.runId) return res;
      // The task has moved on to a newer run: resume exactly ours instead.
      await res.body?.cancel().catch(() => undefined);
      return post(signal, position.lastEventId);
    };
    return new RunStream(connect, this.retry, { signal: req.signal, heartbeats: req.heartbeats, taskId: req.taskId });
  }

  /** Starts a run in the background (POST /api/run with `stream: false`): 202 with the run's metadata. */
  start(req: RunRequest & { signal?: AbortSignal }): Promise<BackgroundRun> {
    return this.transport.json<BackgroundRun>({
      method: 'POST',
      path: '/api/run',
      body: runBody(req, false),
      agentId: req.agentId,
      signal: req.signal,
      headers: { 'idempotency-key': req.idempotencyKey ?? newKey(), 'x-agent-run-client': this.clientName },
      idempotent: true,
    });
  }

  /** Waits until the run ends; resolves with its terminal event (RUN_FINISHED or RUN_ERROR). */
  async wait(runId: string, opts: Omit<EventsOptions, 'follow' | 'limit' | 'cursor'> = {}): Promise<TerminalEvent> {
    for await (const record of this.events(runId, { ...opts, limit: 1000, follow: true })) {
      if (isTerminalRecord(record)) return record.payload as TerminalEvent;
    }
    throw new Error(`The history of run ${runId} ended without a terminal event`);
  }

  /** Every stored event of the run, in order, page after page (GET /api/runs/{run_id}/events). */
  async *events(runId: string, opts: EventsOptions = {}): AsyncGenerator<RunEventRecord> {
    let cursor = opts.cursor;
    for (;;) {
      const page = await this.transport.json<RunEventPage>({
        method: 'GET',
        path: `/api/runs/${encodeURIComponent(runId)}/events`,
        query: { limit: opts.limit, cursor },
        agentId: opts.agentId,
        signal: opts.signal,
        idempotent: true,
      });
      yield* page.events;
      if (page.next_cursor === null) return;
      cursor = page.next_cursor;
      if (page.events.length === 0) {
        // A live run at its tail: poll, or stop when the caller only wanted what is stored.
        if (opts.follow === false) return;
        await sleep(opts.pollIntervalMs ?? 1000, opts.signal);
      }
    }
  }

  /** Whether the task's latest run is active, and its progress (GET /api/run/{task_id}/status). */
  status(taskId: string, opts: CallOptions = {}): Promise<RunStatusResponse> {
    return this.transport.json<RunStatusResponse>({
      method: 'GET',
      path: `/api/run/${encodeURIComponent(taskId)}/status`,
      ...opts,
      idempotent: true,
    });
  }

  /**
   * The runs you may see across agents and tasks, newest first (GET /api/runs); pass the page's
   * `next_cursor` as `cursor` for the next one.
   */
  list(opts: RunListOptions = {}): Promise<RunList> {
    const { signal, status, ...filter } = opts;
    return this.transport.json<RunList>({
      method: 'GET',
      path: '/api/runs',
      query: { ...filter, status: Array.isArray(status) ? status.join(',') : status },
      signal,
      idempotent: true,
    });
  }
}
