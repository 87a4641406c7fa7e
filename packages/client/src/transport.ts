/**
 * Sends one API request with the client rules: bearer token (re-exchanged once on a 401), X-Agent-Id,
 * `Retry-After` on 429 (and 503), exponential backoff with full jitter on 5xx and network errors.
 */
import type { TokenSource } from './auth.ts';
import { ConnectionError, errorFromResponse, retryAfterSeconds } from './errors.ts';
import { backoffDelay, sleep, type RetryPolicy } from './retry.ts';

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** Names the operation in error messages, e.g. "POST /api/run". Defaults to method + path. */
  what?: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** X-Agent-Id for this request (endpoints that take none ignore it). */
  agentId?: string;
  /** Use another base url (the auth api). */
  baseUrl?: string;
  /** Send no Authorization header (the key exchange). */
  anonymous?: boolean;
  /**
   * Whether repeating the request cannot do anything twice (reads, deletes, run starts that carry an
   * Idempotency-Key): those are retried on network errors and any 5xx. Others only on 429 and 502-504,
   * answers that say the request was not handled.
   */
  idempotent: boolean;
}

export interface TransportOptions {
  baseUrl: string;
  fetch: typeof fetch;
  retry: RetryPolicy;
  agentId?: string;
  userAgent?: string;
}

const NOT_HANDLED = new Set([429, 502, 503, 504]);

export class Transport {
  /** Set by the client once its token source exists (the token source exchanges through this transport). */
  tokens: TokenSource | undefined;

  constructor(private readonly options: TransportOptions) {}

  /** The successful response of `spec`, after the retries the rules allow; throws an AgentRunError otherwise. */
  async send(spec: RequestSpec): Promise<Response> {
    const { retry } = this.options;
    const what = spec.what ?? `${spec.method} ${spec.path}`;
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      spec.signal?.throwIfAborted();
      const token = spec.anonymous ? undefined : await this.tokens?.token(spec.signal);
      let res: Response;
      try {
        res = await this.options.fetch(this.url(spec), {
          method: spec.method,
          headers: this.headers(spec, token),
          body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
          signal: spec.signal,
        });
      } catch (error) {
        if (spec.signal?.aborted) throw spec.signal.reason;
        if (!spec.idempotent || attempt >= retry.maxRetries)
          throw new ConnectionError(`${what}: no answer (${describe(error)})`, error);
        await sleep(backoffDelay(retry, attempt), spec.signal);
        continue;
      }
      if (res.ok) return res;
      if (res.status === 401 && !renewed && !spec.anonymous && this.tokens?.canRenew) {
        renewed = true;
        attempt--; // the re-exchange is not a retry
        await discard(res);
        this.tokens.invalidate(token);
        continue;
      }
      const retryable = NOT_HANDLED.has(res.status) || (spec.idempotent && res.status >= 500);
      if (!retryable || attempt >= retry.maxRetries) throw await errorFromResponse(res, what);
      const after = retryAfterSeconds(res);
      if (after !== undefined && (res.status === 429 || res.status === 503)) {
        // Waiting less than the server asked would only be refused again: a wait too long is the caller's call.
        if (after * 1000 > retry.maxRetryAfterMs) throw await errorFromResponse(res, what);
        await discard(res);
        await sleep(after * 1000, spec.signal);
      } else {
        await discard(res);
        await sleep(backoffDelay(retry, attempt), spec.signal);
      }
    }
  }

  /** The parsed JSON body of a successful `spec`. */
  async json<T>(spec: RequestSpec): Promise<T> {
    const res = await this.send(spec);
    return (await res.json()) as T;
  }

  private url(spec: RequestSpec): string {
    // Relative to the base url, so a base with a path prefix keeps it.
    const url = new URL(spec.path.replace(/^\//, ''), withSlash(spec.baseUrl ?? this.options.baseUrl));
    for (const [name, value] of Object.entries(spec.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  private headers(spec: RequestSpec, token: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    const agentId = spec.agentId ?? this.options.agentId;
    if (agentId && !spec.anonymous) headers['x-agent-id'] = agentId;
    if (this.options.userAgent) headers['user-agent'] = this.options.userAgent;
    for (const [name, value] of Object.entries(spec.headers ?? {}))
      if (value !== undefined) headers[name.toLowerCase()] = value;
    return headers;
  }
}

/** Lets the connection be reused: a body nobody reads is cancelled. */
async function discard(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined);
}

function withSlash(base: string): string {
  return base.endsWith('/') ? base : `${base}/`;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}
