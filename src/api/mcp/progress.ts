import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RunEvent } from '../../shared/events.ts';

/** Text deltas go out together: at most one notification per this long, or per this many characters. */
const TEXT_FLUSH_MS = 1000;
const TEXT_FLUSH_CHARS = 400;

/**
 * Turns a run's events into MCP progress notifications, when the client asked for them with a
 * progressToken: the run's start, plan steps, tool calls, questions, and the answer's text in
 * batches. Sending never fails the call: a client gone mid-call simply misses them.
 */
export class ProgressReporter {
  private count = 0;
  private text = '';
  private lastTextAt = 0;
  private readonly token: string | number | undefined;

  constructor(private readonly extra: RequestHandlerExtra<ServerRequest, ServerNotification>) {
    this.token = extra._meta?.progressToken;
  }

  event(event: RunEvent): void {
    if (this.token === undefined) return;
    if (event.type === 'TEXT_MESSAGE_CONTENT') {
      this.text += event.delta;
      if (this.text.length >= TEXT_FLUSH_CHARS || Date.now() - this.lastTextAt >= TEXT_FLUSH_MS) void this.flush();
      return;
    }
    const message = describe(event);
    if (message === undefined) return;
    void this.flush().then(() => this.send(message));
  }

  /** Sends the text gathered so far. */
  async flush(): Promise<void> {
    if (!this.text) return;
    const text = this.text;
    this.text = '';
    this.lastTextAt = Date.now();
    await this.send(text);
  }

  private async send(message: string): Promise<void> {
    if (this.token === undefined) return;
    this.count += 1;
    await this.extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: this.token, progress: this.count, message },
      })
      .catch(() => {});
  }
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
