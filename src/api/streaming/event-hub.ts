import pg from 'pg';
import type { Logger } from 'pino';

export const EVENTS_CHANNEL = 'run_events';

type Wake = () => void;

/**
 * One LISTEN connection per api process, fanning wake-ups out to the streams
 * of each run. A notification carries only a run id: subscribers always read
 * the rows themselves, so a lost notification can delay an event, never lose it.
 * After the connection drops, every subscriber is woken to catch up.
 */
export class EventHub {
  private client: pg.Client | undefined;
  private readonly subscribers = new Map<string, Set<Wake>>();
  private stopped = false;
  private retryMs = 250;

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.connect();
  }

  subscribe(runId: string, wake: Wake): () => void {
    let set = this.subscribers.get(runId);
    if (!set) this.subscribers.set(runId, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0) this.subscribers.delete(runId);
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (msg) => {
      if (msg.payload) this.wake(msg.payload);
    });
    client.on('error', (err) => this.logger.warn({ err: err.message }, 'event hub connection error'));
    client.on('end', () => {
      if (this.client === client) this.client = undefined;
      if (!this.stopped) this.reconnectSoon();
    });
    await client.connect();
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    this.client = client;
    this.retryMs = 250;
    this.wakeAll(); // anything committed while we were not listening
  }

  private reconnectSoon(): void {
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 5000);
    setTimeout(() => {
      if (this.stopped) return;
      this.connect().catch((err: Error) => {
        this.logger.warn({ err: err.message }, 'event hub reconnect failed');
        this.reconnectSoon();
      });
    }, delay).unref();
  }

  private wake(runId: string): void {
    for (const wake of this.subscribers.get(runId) ?? []) wake();
  }

  private wakeAll(): void {
    for (const set of this.subscribers.values()) for (const wake of set) wake();
  }
}
