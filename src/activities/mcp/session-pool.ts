import { createHash } from 'node:crypto';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ServerSession } from './connect.ts';

/** A session no call used for this long is ended (the server's too): a run's next step is usually seconds away. */
const IDLE_MS = 30_000;
/** Idle sessions kept per key: a step's parallel calls of one server each open one. */
const MAX_IDLE_PER_KEY = 4;
/** Idle sessions kept in all (many runs between steps at once): past it the oldest is ended, so memory stays flat. */
const MAX_IDLE = 256;

interface Idle {
  session: ServerSession;
  timer: NodeJS.Timeout;
}

/**
 * Sessions kept open on the worker between the activities of one run, so its calls skip the
 * initialize round trips a new session costs (a new session per call took 4× a call's time on the
 * everything server). A session serves one activity at a time; a run's sessions are its own (the key
 * names the run), so no server-side session state crosses runs. A session the server forgot (404,
 * e.g. it restarted) is replaced at once: the server ran nothing for that request.
 */
export class SessionPool {
  private readonly idle = new Map<string, Idle[]>();

  constructor(
    private readonly idleMs = IDLE_MS,
    private readonly maxIdlePerKey = MAX_IDLE_PER_KEY,
    private readonly maxIdle = MAX_IDLE,
  ) {}

  /** Idle sessions kept now, across keys. */
  get size(): number {
    let n = 0;
    for (const list of this.idle.values()) n += list.length;
    return n;
  }

  /** The key of a run's server: header values (secrets) are hashed, never kept as they are. */
  static key(runId: string, url: string, headers: Record<string, string>): string {
    return createHash('sha256')
      .update(JSON.stringify([runId, url, headers]))
      .digest('hex');
  }

  async use<T>(
    key: string,
    connect: () => Promise<ServerSession>,
    work: (session: ServerSession) => Promise<T>,
  ): Promise<T> {
    const kept = this.take(key);
    if (kept) {
      try {
        return this.keep(key, kept, await work(kept));
      } catch (err) {
        await kept.close();
        if (!sessionGone(err)) throw err;
      }
    }
    const session = await connect();
    try {
      return this.keep(key, session, await work(session));
    } catch (err) {
      // A failed call may leave the session in any state (a request cancelled, a stream cut): never reuse it.
      await session.close();
      throw err;
    }
  }

  /** Ends every idle session (a worker shutting down). */
  async closeAll(): Promise<void> {
    const all = [...this.idle.values()].flat();
    this.idle.clear();
    await Promise.all(all.map(({ session, timer }) => (clearTimeout(timer), session.close())));
  }

  private take(key: string): ServerSession | undefined {
    const list = this.idle.get(key);
    for (let entry = list?.pop(); entry; entry = list?.pop()) {
      clearTimeout(entry.timer);
      // The SDK drops a client's transport when it closes (a legacy SSE stream the server ended).
      if (entry.session.client.transport) {
        if (!list!.length) this.idle.delete(key);
        return entry.session;
      }
      void entry.session.close();
    }
    this.idle.delete(key);
    return undefined;
  }

  private keep<T>(key: string, session: ServerSession, result: T): T {
    const list = this.idle.get(key) ?? [];
    if (list.length >= this.maxIdlePerKey) {
      void session.close();
      return result;
    }
    if (this.size >= this.maxIdle) this.endOldest();
    const timer = setTimeout(() => {
      const now = this.idle.get(key);
      const i = now?.findIndex((e) => e.session === session) ?? -1;
      if (now && i >= 0) now.splice(i, 1);
      if (now && !now.length) this.idle.delete(key);
      void session.close();
    }, this.idleMs);
    timer.unref();
    list.push({ session, timer });
    this.idle.set(key, list);
    return result;
  }

  /** Ends an idle session of the key kept longest (keys are iterated in the order they were added). */
  private endOldest(): void {
    const oldest = this.idle.entries().next().value;
    if (!oldest) return;
    const [key, list] = oldest;
    const entry = list.shift();
    if (!list.length) this.idle.delete(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    void entry.session.close();
  }
}

/** The server no longer knows the session (Streamable HTTP answers 404 for it): it handled nothing of the request. */
function sessionGone(err: unknown): boolean {
  return (err instanceof StreamableHTTPError || err instanceof SseError) && err.code === 404;
}
