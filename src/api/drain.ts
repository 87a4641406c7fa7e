import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { unavailable } from './errors.ts';

/** What a request that reaches a draining api is told to wait before retrying (on another replica). */
export const DRAIN_RETRY_AFTER_SECONDS = 1;

/**
 * An api process leaving (SIGTERM, a deploy): it answers new requests with 503 and
 * `Connection: close` so clients and load balancers move to another replica, tells its
 * open SSE streams to reconnect (`stopSignal`), and waits for the requests already in
 * flight to finish. Streams are requests too: they end once told to reconnect.
 */
export class Drain {
  private readonly stop = new AbortController();
  private readonly responses = new Set<ServerResponse>();
  private idle: (() => void) | undefined;

  /** Aborted when draining starts: every open stream listens to it. */
  get stopSignal(): AbortSignal {
    return this.stop.signal;
  }

  get draining(): boolean {
    return this.stop.signal.aborted;
  }

  get requestsInFlight(): number {
    return this.responses.size;
  }

  /** Counts requests in flight; refuses new ones once draining. */
  readonly middleware: RequestHandler = (_req, res, next) => {
    if (this.draining) {
      res.set('Connection', 'close');
      next(unavailable('This api process is shutting down; retry the request', DRAIN_RETRY_AFTER_SECONDS));
      return;
    }
    this.responses.add(res);
    res.once('close', () => {
      this.responses.delete(res);
      if (this.responses.size === 0) this.idle?.();
    });
    next();
  };

  /** Starts draining; resolves true once no request is in flight, false if `graceMs` passed first. */
  async drain(graceMs: number): Promise<boolean> {
    // Responses not begun yet close their connection when done, so no new request comes on it.
    for (const res of this.responses) if (!res.headersSent) res.shouldKeepAlive = false;
    this.stop.abort();
    if (this.responses.size === 0) return true;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), graceMs);
      this.idle = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }
}
