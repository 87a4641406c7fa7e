/**
 * A run's event stream as an async iterable that survives broken connections: it reconnects with
 * `Last-Event-ID` and drops what it already yielded, so every event comes exactly once, in order.
 */
import { StreamError } from './errors.ts';
import { isTerminalEvent } from './events.ts';
import { backoffDelay, sleep, type RetryPolicy } from './retry.ts';
import { sseMessages } from './sse.ts';
import type { EventOf, RunEvent, TerminalEvent } from './types.ts';

/** Where a stream stands when it (re)connects. */
export interface StreamPosition {
  /** The id (`<run_id>:<seq>`) of the last event received, if any. */
  lastEventId: string | undefined;
  runId: string | undefined;
  taskId: string | undefined;
}

/** Opens (or reopens) the SSE response; resolves with a 2xx response or throws an AgentRunError. */
export type Connect = (position: StreamPosition, signal: AbortSignal | undefined) => Promise<Response>;

export interface RunStreamOptions {
  signal?: AbortSignal;
  /** Yield HEARTBEAT events too (default false: they only keep the connection alive). */
  heartbeats?: boolean;
  /** The last event id already seen: the stream starts right after it. */
  lastEventId?: string;
  /** The task id, when the caller already knows it. */
  taskId?: string;
}

function parseId(id: string): { runId: string; seq: number } | undefined {
  const at = id.lastIndexOf(':');
  const seq = Number(id.slice(at + 1));
  return at > 0 && Number.isInteger(seq) ? { runId: id.slice(0, at), seq } : undefined;
}

/** A drain notice (`SYSTEM_STATUS` `reconnect`, never stored): transport, handled by reconnecting. */
function isReconnectNotice(event: RunEvent): boolean {
  return event.type === 'CUSTOM' && event.name === 'SYSTEM_STATUS' && event.data.status === 'reconnect';
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => undefined); // nobody may ask; a rejection must not go unhandled
  return { promise, resolve, reject };
}

export class RunStream implements AsyncIterable<RunEvent> {
  private readonly run = deferred<string>();
  private readonly task = deferred<string>();
  private readonly position: StreamPosition;
  private readonly texts = new Map<string, string>();
  private terminal: TerminalEvent | undefined;
  private state: 'new' | 'iterating' | 'done' = 'new';
  private failure: unknown;

  constructor(
    private readonly connect: Connect,
    private readonly retry: RetryPolicy,
    private readonly options: RunStreamOptions = {},
  ) {
    this.position = { lastEventId: options.lastEventId, runId: undefined, taskId: options.taskId };
    if (options.taskId) this.task.resolve(options.taskId);
  }

  /** The run's id, from the `X-Run-Id` header or RUN_STARTED. */
  get runId(): Promise<string> {
    return this.run.promise;
  }

  /** The task's id, from the `X-Task-Id` header or RUN_STARTED. */
  get taskId(): Promise<string> {
    return this.task.promise;
  }

  /** The id of the last event yielded: hand it to `tasks.stream(taskId, { lastEventId })` to continue elsewhere. */
  get lastEventId(): string | undefined {
    return this.position.lastEventId;
  }

  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    if (this.state !== 'new') throw new Error('A RunStream can be iterated once');
    this.state = 'iterating';
    return this.events();
  }

  /** The assistant's text: every TEXT_MESSAGE_CONTENT delta, minus messages a retried model step discarded. */
  async text(): Promise<string> {
    await this.drain();
    return [...this.texts.values()].join('');
  }

  /** The terminal event, RUN_FINISHED or RUN_ERROR (consumes the stream if nobody iterates it). */
  async finalResult(): Promise<TerminalEvent> {
    await this.drain();
    if (!this.terminal) throw new StreamError('The stream ended without a terminal event', 0, undefined);
    return this.terminal;
  }

  private async drain(): Promise<void> {
    if (this.state === 'iterating')
      throw new Error('The stream is being iterated: call text() or finalResult() after the loop, or instead of it');
    if (this.state === 'new') for await (const _ of this);
    if (this.failure) throw this.failure;
  }

  private async *events(): AsyncGenerator<RunEvent> {
    try {
      yield* this.follow();
    } catch (error) {
      this.failure = error;
      this.run.reject(error);
      this.task.reject(error);
      throw error;
    } finally {
      this.state = 'done';
    }
  }

  private async *follow(): AsyncGenerator<RunEvent> {
    const { signal } = this.options;
    const lastSeq = new Map<string, number>();
    const start = this.position.lastEventId ? parseId(this.position.lastEventId) : undefined;
    if (start) lastSeq.set(start.runId, start.seq);
    let idle = 0; // connections in a row that brought no new event
    for (;;) {
      const res = await this.connect({ ...this.position }, signal);
      this.learn(res.headers.get('x-run-id'), res.headers.get('x-task-id'));
      let progressed = false;
      try {
        for await (const message of sseMessages(res)) {
          signal?.throwIfAborted(); // frames already parsed are not yielded after an abort
          const event = JSON.parse(message.data) as RunEvent;
          const id = message.id ? parseId(message.id) : undefined;
          if (id) {
            if (id.seq <= (lastSeq.get(id.runId) ?? 0)) continue; // seen before a reconnect
            lastSeq.set(id.runId, id.seq);
            this.position.lastEventId = message.id;
            progressed = true;
          }
          if (event.type === 'RUN_STARTED') this.learn(event.run_id, event.thread_id);
          if (isReconnectNotice(event) || (event.type === 'HEARTBEAT' && !this.options.heartbeats)) continue;
          this.observe(event);
          yield event;
          if (isTerminalEvent(event)) return;
        }
      } catch (error) {
        if (signal?.aborted) throw signal.reason ?? error;
        if (error instanceof SyntaxError)
          throw new StreamError(`A stream event is not JSON: ${error.message}`, 0, undefined);
        // The connection broke: reconnect below.
      }
      idle = progressed ? 0 : idle + 1;
      if (idle > this.retry.maxRetries)
        throw new StreamError(`The stream ended without a terminal event ${idle} times in a row`, 0, undefined);
      await sleep(backoffDelay(this.retry, Math.max(0, idle - 1)), signal);
    }
  }

  private learn(runId: string | null | undefined, taskId: string | null | undefined): void {
    if (runId && !this.position.runId) {
      this.position.runId = runId;
      this.run.resolve(runId);
    }
    if (taskId && !this.position.taskId) {
      this.position.taskId = taskId;
      this.task.resolve(taskId);
    }
  }

  private observe(event: RunEvent): void {
    if (event.type === 'TEXT_MESSAGE_CONTENT')
      this.texts.set(event.message_id, (this.texts.get(event.message_id) ?? '') + event.delta);
    if (event.type === 'CUSTOM' && event.name === 'SYSTEM_STATUS')
      discarded(event).forEach((id) => this.texts.delete(id));
    if (isTerminalEvent(event)) this.terminal = event;
  }
}

/** Message ids a retried model step discarded (`SYSTEM_STATUS` `retrying`); their text is not part of the answer. */
function discarded(event: EventOf<'CUSTOM'>): string[] {
  const ids = event.data.discarded_message_ids;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}
