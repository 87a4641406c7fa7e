/**
 * The bearer token of the client: an API key exchanged for a JWT (or a token from the caller's own
 * `renewToken`, e.g. a browser session), cached, and renewed before it expires.
 */
import type { TokenExchangeResponse } from './types.ts';

/** Gets a fresh token: the key exchange (the transport provides it, with its retries) or the caller's renewal. */
export type Renew = (signal?: AbortSignal) => Promise<TokenExchangeResponse>;

interface Cached {
  token: string;
  /** Epoch ms after which the token is renewed (some time before it expires). */
  renewAt: number;
}

/** Renew this long before expiry: a minute, or a tenth of a short lifetime. */
function renewAt(issued: TokenExchangeResponse, now: number): number {
  const expiresAt = Date.parse(issued.expires_at);
  const expiry = Number.isNaN(expiresAt) ? now + issued.expires_in * 1000 : expiresAt;
  const lifetime = Math.max(0, expiry - now);
  return expiry - Math.min(60_000, lifetime / 10);
}

export class TokenSource {
  private cached: Cached | undefined;
  private pending: Promise<Cached> | undefined;
  /** The last renewal's answer (who the key belongs to); undefined before the first one or with a fixed token. */
  issued: TokenExchangeResponse | undefined;

  /** `renew`: undefined when the token cannot be renewed (a fixed token alone). */
  constructor(
    private readonly renew: Renew | undefined,
    fixedToken: string | undefined,
  ) {
    if (fixedToken) this.cached = { token: fixedToken, renewAt: Number.POSITIVE_INFINITY };
  }

  /** True when a refused token can be replaced (an API key or a renewal is configured). */
  get canRenew(): boolean {
    return this.renew !== undefined;
  }

  /** A token for the next request: the cached one, or a fresh one (one renewal at a time, shared by concurrent callers). */
  async token(signal?: AbortSignal): Promise<string | undefined> {
    if (this.cached && (Date.now() < this.cached.renewAt || !this.renew)) return this.cached.token;
    if (!this.renew) return undefined;
    // The renewal is shared by every caller waiting for it, so no one caller's signal may abort it:
    // each caller stops waiting on its own signal instead.
    this.pending ??= this.renew()
      .then((issued) => {
        this.issued = issued;
        return (this.cached = { token: issued.access_token, renewAt: renewAt(issued, Date.now()) });
      })
      .finally(() => (this.pending = undefined));
    return (await untilAborted(this.pending, signal)).token;
  }

  /** Forgets `token` after a 401, so the next `token()` renews it (unless another caller already did). */
  invalidate(token: string | undefined): void {
    if (this.renew && this.cached?.token === token) this.cached = undefined;
  }
}

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
