/**
 * Coalesces streamed text into one write per window, so a fast model
 * produces tens of event rows per second rather than hundreds. Writes are
 * sequential: the next flush waits for the previous one.
 */
export class DeltaBuffer {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly windowMs: number,
    private readonly sink: (text: string) => Promise<void>,
  ) {}

  push(text: string): void {
    if (this.failure) throw this.failure;
    this.pending += text;
    if (this.windowMs <= 0) {
      void this.flush().catch(() => {});
    } else {
      this.timer ??= setTimeout(() => void this.flush().catch(() => {}), this.windowMs);
    }
  }

  /** Writes whatever is pending and waits for every earlier write. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const text = this.pending;
    this.pending = '';
    if (text) {
      this.chain = this.chain.then(() => this.sink(text)).catch((err: unknown) => {
        this.failure = err;
      });
    }
    await this.chain;
    if (this.failure) throw this.failure;
  }
}
