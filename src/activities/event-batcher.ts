import type { RunEventInput } from '../shared/events.ts';

/**
 * Collects a model step's events and writes them in batches, one transaction
 * per window, so a fast model produces tens of writes per second rather than
 * hundreds. Consecutive text or argument deltas of the same message or call are
 * merged into one event. Writes are sequential and keep the events' order.
 */
export class EventBatcher {
  private pending: RunEventInput[] = [];
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly windowMs: number,
    private readonly sink: (events: RunEventInput[]) => Promise<void>,
  ) {}

  push(event: RunEventInput): void {
    if (this.failure) throw this.failure;
    const last = this.pending.at(-1);
    if (
      last?.type === 'TEXT_MESSAGE_CONTENT' &&
      event.type === 'TEXT_MESSAGE_CONTENT' &&
      last.message_id === event.message_id
    ) {
      last.delta += event.delta;
    } else if (
      last?.type === 'TOOL_CALL_ARGS' &&
      event.type === 'TOOL_CALL_ARGS' &&
      last.tool_call_id === event.tool_call_id
    ) {
      last.delta += event.delta;
    } else {
      this.pending.push({ ...event });
    }
    if (this.windowMs <= 0) void this.flush().catch(() => {});
    else this.timer ??= setTimeout(() => void this.flush().catch(() => {}), this.windowMs);
  }

  /** Waits for every earlier write, then hands back what is pending instead of writing it (for a caller that writes it in its own transaction). */
  async take(): Promise<RunEventInput[]> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
    if (this.failure) throw this.failure;
    const batch = this.pending;
    this.pending = [];
    return batch;
  }

  /** Writes whatever is pending and waits for every earlier write. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length > 0) {
      this.chain = this.chain
        .then(() => this.sink(batch))
        .catch((err: unknown) => {
          this.failure = err;
        });
    }
    await this.chain;
    if (this.failure) throw this.failure;
  }
}
