import pg from 'pg';
import type { Logger } from 'pino';
import { EVENTS_CHANNEL, QUEUES_CHANNEL, type StoredEvent } from '../../db/event-log.ts';
import { eventName, type RunEvent } from '../../shared/events.ts';

/**
 * Called for every notification about the subscribed run: with the event when the notification
 * carried it, without when the subscriber has to read the table (an event too large to carry,
 * or a reconnect of the LISTEN connection, after which anything may have been missed).
 */
export type Delivery = (event?: StoredEvent) => void;

/** Reads stored events with seq > after, at most `limit`, in order. */
export type EventReader = (runId: string, after: number, limit: number) => Promise<StoredEvent[]>;

export const READ_PAGE = 500;

/** `application_name` of the LISTEN connection, so operators (and tests) can find it in pg_stat_activity. */
export const EVENT_HUB_APPLICATION = 'ars-event-hub';

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5000;

interface Listening {
  client: pg.Client;
  /** Resolves when the connection has ended, for whatever reason. */
  ended: Promise<void>;
}

interface InflightRead {
  after: number;
  /** The run's wake count when the query started: it sees every commit notified before. */
  generation: number;
  rows: Promise<StoredEvent[]>;
}

/**
 * One LISTEN connection per api process, fanning notifications out to the streams
 * of each run. A notification carries the event (trigger notify_run_event, migration
 * 20261123130000_notify_event_rows), parsed once for all of the run's streams; a
 * stream sends it when it is the next seq and reads the table otherwise, so a lost
 * notification can delay an event, never lose it. After the connection drops it
 * reconnects (one loop, with backoff) and wakes every subscriber to read and catch up.
 */
export class EventHub {
  private client: pg.Client | undefined;
  private readonly subscribers = new Map<string, Set<Delivery>>();
  private readonly generations = new Map<string, number>();
  private readonly inflight = new Map<string, InflightRead>();
  private readonly queueListeners: ((taskId: string) => void)[] = [];
  private stopped = false;
  /** Cuts the reconnect loop's backoff wait short on stop. */
  private stopNow: () => void = () => {};

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

  /**
   * Connects, then keeps one loop running that reconnects whenever the
   * connection ends. Resolves once the first LISTEN is in place; fails (and
   * stops) if the database cannot be reached at start.
   */
  async start(): Promise<void> {
    const first = await this.listen();
    void this.keepListening(first);
  }

  /** Whether the LISTEN connection is up right now (readiness). */
  get listening(): boolean {
    return this.client !== undefined && !this.stopped;
  }

  subscribe(runId: string, deliver: Delivery): () => void {
    let set = this.subscribers.get(runId);
    if (!set) this.subscribers.set(runId, (set = new Set()));
    set.add(deliver);
    return () => {
      set.delete(deliver);
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
    this.stopNow();
    await this.client?.end().catch(() => {});
  }

  /**
   * The only reconnect path: waits for the current connection to end, ends it
   * for good (a client is never left open behind us), then opens the next one
   * after a backoff of 250 ms doubling to 5 s, reset by a successful LISTEN.
   * One loop, so reconnects never overlap and at most one connection exists.
   */
  private async keepListening(first: Listening): Promise<void> {
    let current: Listening | undefined = first;
    let retryMs = RETRY_MIN_MS;
    while (!this.stopped) {
      if (current) {
        await current.ended;
        this.client = undefined;
        await current.client.end().catch(() => {});
        current = undefined;
        retryMs = RETRY_MIN_MS;
      }
      if (this.stopped) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, retryMs);
        this.stopNow = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.stopNow = () => {};
      if (this.stopped) return;
      try {
        current = await this.listen();
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, retryMs }, 'event hub reconnect failed');
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      }
    }
  }

  /** One connection with LISTEN in place; a failed attempt ends its client before throwing. */
  private async listen(): Promise<Listening> {
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      application_name: EVENT_HUB_APPLICATION,
      keepAlive: true,
    });
    const ended = new Promise<void>((resolve) => {
      client.once('end', () => resolve());
    });
    client.on('notification', (msg) => {
      if (!msg.payload) return;
      if (msg.channel === QUEUES_CHANNEL) for (const listener of this.queueListeners) listener(msg.payload);
      else this.notified(msg.payload);
    });
    client.on('error', (err) => this.logger.warn({ err: err.message }, 'event hub connection error'));
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}; LISTEN ${QUEUES_CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      throw new Error('event hub stopped');
    }
    this.client = client;
    this.wakeAll(); // anything committed while we were not listening
    return { client, ended };
  }

  /**
   * Calls `listener` with the task id when a run of a task that has queued runs ended (channel
   * QUEUES_CHANNEL, notified by the terminal event's trigger): its queue should move.
   */
  onQueueToMove(listener: (taskId: string) => void): void {
    this.queueListeners.push(listener);
  }

  /** `<run_id> <seq> <created_at ms> <payload json>`, or `<run_id> <seq>` for an event too large to carry. */
  private notified(message: string): void {
    const end = message.indexOf(' ');
    const runId = end < 0 ? message : message.slice(0, end);
    // Most notifications are about runs nobody streams from this process: no parsing for those.
    if (!this.subscribers.has(runId)) return;
    this.wake(runId, end < 0 ? undefined : carriedEvent(runId, message, end + 1));
  }

  private wake(runId: string, event?: StoredEvent): void {
    const subscribers = this.subscribers.get(runId);
    if (!subscribers) return;
    this.generations.set(runId, (this.generations.get(runId) ?? 0) + 1);
    for (const deliver of subscribers) deliver(event);
  }

  private wakeAll(): void {
    for (const runId of this.subscribers.keys()) this.wake(runId);
  }
}

/** The event a notification carries after its run id (from `at`), or undefined when it carries only the seq. */
function carriedEvent(runId: string, message: string, at: number): StoredEvent | undefined {
  const seqEnd = message.indexOf(' ', at);
  if (seqEnd < 0) return undefined;
  const timeEnd = message.indexOf(' ', seqEnd + 1);
  const payload = JSON.parse(message.slice(timeEnd + 1)) as RunEvent;
  return {
    runId,
    seq: Number(message.slice(at, seqEnd)),
    type: payload.type,
    name: eventName(payload),
    payload,
    createdAt: new Date(Number(message.slice(seqEnd + 1, timeEnd))),
  };
}
