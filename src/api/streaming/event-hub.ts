import pg from 'pg';
import type { Logger } from 'pino';
import type { StoredEvent } from '../../db/event-log.ts';

export const EVENTS_CHANNEL = 'run_events';

type Wake = () => void;

/** Reads stored events with seq > after, at most `limit`, in order. */
export type EventReader = (runId: string, after: number, limit: number) => Promise<StoredEvent[]>;

export const READ_PAGE = 500;

interface InflightRead {
  after: number;
  /** The run's wake count when the query started: it sees every commit notified before. */
  generation: number;
  rows: Promise<StoredEvent[]>;
}

/**
 * One LISTEN connection per api process, fanning wake-ups out to the streams
 * of each run. A notification carries only a run id: subscribers always read
 * the rows themselves, so a lost notification can delay an event, never lose it.
 * After the connection drops, every subscriber is woken to catch up.
 */
export class EventHub {
  private client: pg.Client | undefined;
  private readonly subscribers = new Map<string, Set<Wake>>();
  private readonly generations = new Map<string, number>();
  private readonly inflight = new Map<string, InflightRead>();
  private stopped = false;
  private retryMs = 250;

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
    private readonly reader: EventReader,
  ) {}

  /**
   * The run's events after `after`. Streams woken by one notification ask for
   * nearly the same rows at once, so a query already under way is shared when
   * it started after the caller's latest wake-up and from no later a point:
   * 50 readers of a run cost one query per batch, not 50. `more` says the page
   * was full and the caller should read again.
   */
  async read(runId: string, after: number): Promise<{ events: StoredEvent[]; more: boolean }> {
    const generation = this.generations.get(runId) ?? 0;
    const current = this.inflight.get(runId);
    let rows: StoredEvent[];
    if (current && current.generation >= generation && current.after <= after) {
      rows = await current.rows;
    } else {
      const read: InflightRead = { after, generation, rows: this.reader(runId, after, READ_PAGE) };
      this.inflight.set(runId, read);
      try {
        rows = await read.rows;
      } finally {
        if (this.inflight.get(runId) === read) this.inflight.delete(runId);
      }
    }
    return { events: rows.filter((e) => e.seq > after), more: rows.length === READ_PAGE };
  }

  async start(): Promise<void> {
    await this.connect();
  }

  subscribe(runId: string, wake: Wake): () => void {
    let set = this.subscribers.get(runId);
    if (!set) this.subscribers.set(runId, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0) {
        // Wake counts exist only while someone listens: forget them and any read they vouch for.
        this.subscribers.delete(runId);
        this.generations.delete(runId);
        this.inflight.delete(runId);
      }
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
    const subscribers = this.subscribers.get(runId);
    if (!subscribers) return;
    this.generations.set(runId, (this.generations.get(runId) ?? 0) + 1);
    for (const wake of subscribers) wake();
  }

  private wakeAll(): void {
    for (const runId of this.subscribers.keys()) this.wake(runId);
  }
}
