import type { ProgressToken } from '@modelcontextprotocol/sdk/types.js';
import type { RunEvent } from '../../shared/events.ts';

/** Text deltas go out together: at most one notification per this long, or per this many characters. */
const TEXT_FLUSH_MS = 1000;
const TEXT_FLUSH_CHARS = 400;

/** Sends one progress notification: `progress` is the seq of the last run event it reflects. */
export type SendProgress = (progress: number, message: string) => Promise<void> | void;

/**
 * Turns a run's events into MCP progress notifications, when the client asked for them with a
 * progressToken: the run's start, plan steps, tool calls, questions, and the answer's text in
 * batches. A notification's `progress` is the run event's seq, so it rises on any replica that
 * sends it, and a stream resumed after it continues from that event (SSE event ids carry it too).
 * Sending never fails the call: a client gone mid-call simply misses them.
 */
export class ProgressReporter {
  private text = '';
  private textSeq = 0;
  private lastTextAt = 0;

  constructor(
    private readonly token: ProgressToken | undefined,
    private readonly sendProgress: SendProgress,
  ) {}

  event(event: RunEvent, seq: number): void {
    if (this.token === undefined) return;
    if (event.type === 'TEXT_MESSAGE_CONTENT') {
      this.text += event.delta;
      this.textSeq = seq;
      if (this.text.length >= TEXT_FLUSH_CHARS || Date.now() - this.lastTextAt >= TEXT_FLUSH_MS) void this.flush();
      return;
    }
    const message = describe(event);
    if (message === undefined) return;
    void this.flush().then(() => this.send(seq, message));
  }

  /** Sends the text gathered so far. */
  async flush(): Promise<void> {
    if (!this.text) return;
    const text = this.text;
    this.text = '';
    this.lastTextAt = Date.now();
    await this.send(this.textSeq, text);
  }

  private async send(seq: number, message: string): Promise<void> {
    if (this.token === undefined) return;
    try {
      await this.sendProgress(seq, message);
    } catch {
      // the client is gone; a resumed stream sends what it missed
    }
  }
}

/** The progress notification for a token. */
export function progressNotification(token: ProgressToken, progress: number, message: string) {
  return { method: 'notifications/progress' as const, params: { progressToken: token, progress, message } };
}

function describe(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'RUN_STARTED':
      return `Run ${event.run_id} started (${event.mode})`;
    case 'TOOL_CALL_START':
      return `Calling ${event.tool_call_name}`;
    case 'CUSTOM':
      if (event.name === 'PLAN_CREATED') {
        const steps = Array.isArray(event.data.steps) ? (event.data.steps as unknown[]) : [];
        return `Plan: ${steps.map((s, i) => `${i + 1}. ${typeof s === 'string' ? s : JSON.stringify(s)}`).join(' ')}`;
      }
      if (event.name === 'USER_INPUT_REQUIRED') return `Waiting for input: ${String(event.data.prompt)}`;
      return undefined;
    default:
      return undefined;
  }
}
