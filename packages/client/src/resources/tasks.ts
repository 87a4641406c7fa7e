/** `client.tasks`: list, read, follow, steer and delete tasks (conversations) and control their active run. */
import { RunStream } from '../run-stream.ts';
import type { RetryPolicy } from '../retry.ts';
import type { Transport } from '../transport.ts';
import type {
  CallOptions,
  CommentAccepted,
  MessageList,
  RunControlResult,
  Task,
  TaskDeleted,
  TaskList,
} from '../types.ts';

export interface TaskStreamOptions extends CallOptions {
  /** Continue right after this event id (`<run_id>:<seq>`), e.g. a RunStream's `lastEventId`. */
  lastEventId?: string;
  /** Yield HEARTBEAT events too (default false). */
  heartbeats?: boolean;
}

export interface RunControlOptions extends CallOptions {
  reason?: string;
}

const task = (taskId: string) => `/api/tasks/${encodeURIComponent(taskId)}`;

export class Tasks {
  constructor(
    private readonly transport: Transport,
    private readonly retry: RetryPolicy,
  ) {}

  /** The agent's tasks visible to the caller, newest first (GET /api/tasks; `limit` 1-200, default 50). */
  list(opts: CallOptions & { limit?: number } = {}): Promise<TaskList> {
    const { limit, ...call } = opts;
    return this.transport.json({ method: 'GET', path: '/api/tasks', query: { limit }, ...call, idempotent: true });
  }

  /** One task with its run summaries (GET /api/tasks/{task_id}). */
  get(taskId: string, opts: CallOptions = {}): Promise<Task> {
    return this.transport.json({ method: 'GET', path: task(taskId), ...opts, idempotent: true });
  }

  /** The task's conversation, in order (GET /api/tasks/{task_id}/messages). */
  messages(taskId: string, opts: CallOptions = {}): Promise<MessageList> {
    return this.transport.json({ method: 'GET', path: `${task(taskId)}/messages`, ...opts, idempotent: true });
  }

  /** Deletes the task with its runs, messages and events (DELETE /api/tasks/{task_id}). */
  delete(taskId: string, opts: CallOptions = {}): Promise<TaskDeleted> {
    return this.transport.json({ method: 'DELETE', path: task(taskId), ...opts, idempotent: true });
  }

  /**
   * Follows the task's latest run (GET /api/tasks/{task_id}/stream): stored events, then live ones, to its
   * terminal event; reconnects with `Last-Event-ID` when the connection breaks.
   */
  stream(taskId: string, opts: TaskStreamOptions = {}): RunStream {
    const connect = (position: { lastEventId: string | undefined }, signal: AbortSignal | undefined) =>
      this.transport.send({
        method: 'GET',
        path: `${task(taskId)}/stream`,
        headers: { 'last-event-id': position.lastEventId },
        agentId: opts.agentId,
        signal,
        idempotent: true,
      });
    return new RunStream(connect, this.retry, {
      signal: opts.signal,
      heartbeats: opts.heartbeats,
      lastEventId: opts.lastEventId,
      taskId,
    });
  }

  /** Cancels the active run (POST /api/tasks/{task_id}/cancel); 409 when nothing is running. */
  cancel(taskId: string, opts: RunControlOptions = {}): Promise<RunControlResult> {
    return this.control(taskId, 'cancel', opts);
  }

  /** Pauses the active run at its next safe point (POST /api/tasks/{task_id}/pause). */
  pause(taskId: string, opts: RunControlOptions = {}): Promise<RunControlResult> {
    return this.control(taskId, 'pause', opts);
  }

  /** Resumes a paused run (POST /api/tasks/{task_id}/resume). */
  resume(taskId: string, opts: RunControlOptions = {}): Promise<RunControlResult> {
    return this.control(taskId, 'resume', opts);
  }

  /** Adds a steering comment (1-2000 characters) to a running run (POST /api/tasks/{task_id}/runs/{run_id}/comment). */
  comment(taskId: string, runId: string, content: string, opts: CallOptions = {}): Promise<CommentAccepted> {
    return this.transport.json({
      method: 'POST',
      path: `${task(taskId)}/runs/${encodeURIComponent(runId)}/comment`,
      body: { content },
      ...opts,
      idempotent: false,
    });
  }

  private control(
    taskId: string,
    action: 'cancel' | 'pause' | 'resume',
    opts: RunControlOptions,
  ): Promise<RunControlResult> {
    const { reason, ...call } = opts;
    return this.transport.json({
      method: 'POST',
      path: `${task(taskId)}/${action}`,
      body: reason === undefined ? {} : { reason },
      ...call,
      idempotent: false,
    });
  }
}
