/** AgentRunClient: the typed client of the Agent Run Service. */
import { TokenSource } from './auth.ts';
import { Admin } from './resources/admin.ts';
import { Agents } from './resources/agents.ts';
import { Approvals } from './resources/approvals.ts';
import { Input } from './resources/input.ts';
import { Memories } from './resources/memories.ts';
import { Runs } from './resources/runs.ts';
import { Tasks } from './resources/tasks.ts';
import { retryPolicy, type RetryOptions } from './retry.ts';
import { Transport } from './transport.ts';
import type { TokenExchangeResponse } from './types.ts';

/** The caller behind a client's API key. */
export type Identity = Pick<TokenExchangeResponse, 'org_id' | 'user_id' | 'role'>;

export interface AgentRunClientOptions {
  /** The api's base url, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** An API key, exchanged for a JWT at `authUrl` (cached, renewed before expiry and after a 401). */
  apiKey?: string;
  /** A ready JWT instead (it cannot be renewed unless `apiKey` or `renewToken` is given too). */
  token?: string;
  /**
   * Gets a fresh token in place of the key exchange (when none is cached, before expiry and after a
   * 401), for a caller that holds no key: the web console renews through its session cookie.
   */
  renewToken?: (signal?: AbortSignal) => Promise<TokenExchangeResponse>;
  /** Base url of the auth api (default `baseUrl`). */
  authUrl?: string;
  /** The default `X-Agent-Id`; each call may override it. */
  agentId?: string;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
  retry?: RetryOptions;
  /** Sent as `User-Agent` where the platform allows it (browsers ignore it). */
  userAgent?: string;
  /** Which client starts runs (`X-Agent-Run-Client`, shown as their source in the runs list): `sdk` unless the CLI or console. */
  clientName?: 'sdk' | 'cli' | 'console';
}

export class AgentRunClient {
  readonly runs: Runs;
  readonly tasks: Tasks;
  readonly input: Input;
  readonly approvals: Approvals;
  readonly memories: Memories;
  readonly admin: Admin;
  readonly agents: Agents;
  private readonly tokens: TokenSource;

  constructor(options: AgentRunClientOptions) {
    if (!options.apiKey && !options.token && !options.renewToken)
      throw new TypeError('AgentRunClient needs an apiKey, a token or renewToken');
    if (options.apiKey && options.renewToken)
      throw new TypeError('AgentRunClient takes an apiKey or renewToken, not both');
    const retry = retryPolicy(options.retry);
    // Bound to globalThis: browsers refuse a fetch called as a method of another object.
    const fetchImpl: typeof fetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
    const transport = new Transport({
      baseUrl: options.baseUrl,
      fetch: fetchImpl,
      retry,
      agentId: options.agentId,
      userAgent: options.userAgent,
    });
    const apiKey = options.apiKey;
    const exchange = apiKey
      ? (signal?: AbortSignal) =>
          transport.json<TokenExchangeResponse>({
            method: 'POST',
            path: '/api/v1/auth/exchange/agent-token',
            baseUrl: options.authUrl ?? options.baseUrl,
            body: { api_key: apiKey },
            anonymous: true,
            signal,
            idempotent: true,
          })
      : undefined;
    const tokens = new TokenSource(options.renewToken ?? exchange, options.token);
    transport.tokens = tokens;
    this.tokens = tokens;
    this.runs = new Runs(transport, retry, options.clientName ?? 'sdk');
    this.tasks = new Tasks(transport, retry);
    this.input = new Input(transport);
    this.approvals = new Approvals(transport);
    this.memories = new Memories(transport, options.agentId);
    this.admin = new Admin(transport);
    this.agents = new Agents(transport);
  }

  /**
   * Who the API key belongs to (`org_id`, `user_id`, `role`), from the token exchange (or renewal); it
   * exchanges the key if no token is cached yet (this is how a sign-in checks a key). Throws for a
   * client built with only `token` (no exchange happens then).
   */
  async identity(opts: { signal?: AbortSignal } = {}): Promise<Identity> {
    await this.tokens.token(opts.signal);
    const issued = this.tokens.issued;
    if (!issued)
      throw new TypeError(
        'identity() needs an apiKey or renewToken: a client built with only a token never exchanges one',
      );
    return { org_id: issued.org_id, user_id: issued.user_id, role: issued.role };
  }
}
