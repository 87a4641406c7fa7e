import type { RequestHandler } from 'express';
import pg from 'pg';
import type { Logger } from 'pino';
import { RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../../config.ts';
import { DomainError, rateLimited } from '../../shared/domain-error.ts';
import { rateLimitRejections } from '../metrics.ts';
import type { Caller } from '../../auth/caller.ts';

/** The spec's two limited classes (starting runs, everything under /api/tasks) and ours: event history, memory search, approvals. */
export type RateLimitClass = 'runs' | 'tasks' | 'events' | 'memories' | 'approvals';

const CLASSES: RateLimitClass[] = ['runs', 'tasks', 'events', 'memories', 'approvals'];

export type RateLimitSettings = Config['rateLimits'];

/**
 * Budgets of unauthenticated or public doors, each per its own id in every replica together: the widget
 * gateway's requests per widget key, per visitor and per client address, its run starts per widget key,
 * and the new events an inbound flow takes.
 */
export type Budget = 'widget-key' | 'widget-visitor' | 'widget-address' | 'widget-key-runs' | 'flow-events';

/** Counters shared by every api replica: one row per key in the `rate_limits` table. */
export const RATE_LIMIT_TABLE = 'rate_limits';

const WHAT: Record<RateLimitClass, string> = {
  runs: 'run requests (POST /api/run, POST /api/run/async)',
  tasks: 'task requests (/api/tasks…)',
  events: 'event history requests (GET /api/runs/{run_id}/events)',
  memories: 'memory searches (GET /api/agents/{agent_id}/memories)',
  approvals: 'approval requests (/api/approvals…)',
};

/** The 429 as documented in the OpenAPI document: the default limits, which operators may change. */
export const RATE_LIMIT_DOCS: Record<RateLimitClass, string> = {
  runs: 'run creation (POST /api/run, POST /api/run/async): 30 requests per minute by default',
  tasks: 'task requests (/api/tasks…): 100 requests per minute by default',
  events: 'event history (GET /api/runs/{run_id}/events): 300 requests per minute by default',
  memories: 'memory search (GET /api/agents/{agent_id}/memories): 60 requests per minute by default',
  approvals: 'approvals (/api/approvals…): 60 requests per minute by default',
};

/** Each budget's limit and what it counts ("{per}" becomes "per minute"), for its 429. */
const BUDGETS: Record<Budget, (s: RateLimitSettings) => [number, string]> = {
  'widget-key': (s) => [s.widgetKey, 'widget requests {per} for this widget key (all its visitors together)'],
  'widget-visitor': (s) => [s.widgetVisitor, 'widget requests {per} for each widget visitor'],
  'widget-address': (s) => [
    s.widgetAddress,
    'widget requests {per} from one client address (all its visitors together)',
  ],
  'widget-key-runs': (s) => [s.widgetKeyRuns, 'widget runs {per} for this widget key (all its visitors together)'],
  'flow-events': (s) => [s.flowEvents, 'events {per} for this flow'],
};

export const rateLimitKey = (cls: RateLimitClass, caller: Pick<Caller, 'orgId' | 'userId'>) =>
  `org:${caller.orgId}:user:${caller.userId}:${cls}`;

/**
 * The limiters of one api process. Each request to a limited route consumes one
 * point in a fixed window (`windowSeconds`, 60 by default) keyed by org and user.
 */
export class RateLimits {
  constructor(
    readonly settings: RateLimitSettings,
    private readonly limiters: Record<RateLimitClass, RateLimiterAbstract>,
    /** Failed key exchanges, per client address and per key. */
    readonly exchange: FailureGuard,
    /** Inbound flow requests refused (bad signature, unknown flow), per client address. */
    readonly flows: FailureGuard,
    /** The budgets of public doors (Budget), each a limiter over the same window. */
    private readonly budgets: Record<Budget, RateLimiterAbstract>,
    private readonly logger: Logger,
    private readonly onClose: () => Promise<void>,
  ) {}

  /**
   * Counts one request of `caller`; throws the 429 when the window's budget is spent.
   * If the store fails (database unreachable) the request is let through with a
   * warning: a limiter outage must not become an api outage, and every limited
   * route needs the same database anyway.
   */
  async consume(cls: RateLimitClass, caller: Pick<Caller, 'orgId' | 'userId'>): Promise<void> {
    await this.take(this.limiters[cls], rateLimitKey(cls, caller), cls, () => this.describe(cls));
  }

  /** Counts one use of `budget` by `id` (a widget key, a visitor, a client address, a flow); 429 when spent. */
  async consumeBudget(budget: Budget, id: string): Promise<void> {
    const { windowSeconds } = this.settings;
    const per = windowSeconds === 60 ? 'per minute' : `per ${windowSeconds} seconds`;
    const [limit, what] = BUDGETS[budget](this.settings);
    await this.take(
      this.budgets[budget],
      `${budget}:${id}`,
      budget.replaceAll('-', '_'),
      () => `Rate limit exceeded: at most ${limit} ${what.replace('{per}', per)}.`,
    );
  }

  /**
   * Consumes a point of `key`, or throws the 429. If the store fails (database unreachable)
   * the request is let through with a warning (fail open, as above).
   */
  private async take(
    limiter: RateLimiterAbstract,
    key: string,
    metricClass: string,
    describe: () => string,
  ): Promise<void> {
    try {
      await limiter.consume(key);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) {
        this.logger.warn({ err, key }, 'rate limit store failed; request allowed (fail open)');
        return;
      }
      const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      rateLimitRejections.inc({ class: metricClass });
      throw rateLimited(`${describe()} Retry after ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`, retryAfter);
    }
  }

  describe(cls: RateLimitClass): string {
    const { windowSeconds } = this.settings;
    const per = windowSeconds === 60 ? 'per minute' : `per ${windowSeconds} seconds`;
    return `Rate limit exceeded: at most ${this.settings[cls]} ${WHAT[cls]} ${per} for each user of an organization.`;
  }

  close(): Promise<void> {
    return this.onClose();
  }
}

/**
 * Limiters on the `rate_limits` table (created by our migration in the library's
 * layout), through a small pool of their own with short timeouts so a slow
 * database fails open quickly instead of holding requests.
 */
export function createRateLimits(settings: RateLimitSettings, databaseUrl: string, logger: Logger): RateLimits {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 4,
    connectionTimeoutMillis: 2000,
    query_timeout: 2000,
  });
  pool.on('error', (err) => logger.warn({ err: err.message }, 'rate limit pool connection error'));
  const limiter = (points: number, clearExpired = false) =>
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true,
      keyPrefix: '',
      points,
      duration: settings.windowSeconds,
      // One timer per process is enough to delete rows expired over an hour ago.
      clearExpiredByTimeout: clearExpired,
    });
  const limiters = Object.fromEntries(
    CLASSES.map((cls) => [cls, limiter(settings[cls], cls === 'runs')]),
  ) as unknown as Record<RateLimitClass, RateLimiterAbstract>;
  const budgets = Object.fromEntries(
    Object.entries(BUDGETS).map(([name, limitOf]) => [name, limiter(limitOf(settings)[0])]),
  ) as unknown as Record<Budget, RateLimiterAbstract>;
  const failures = (keyPrefix: string, points: number) =>
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true,
      keyPrefix,
      points,
      duration: settings.exchangeFailureWindowSeconds,
      clearExpiredByTimeout: false,
    });
  const exchangeFailures = (scope: string, points: number) => failures(`exchange-failures:${scope}`, points);
  const exchange = new FailureGuard(
    [
      exchangeFailures('address', settings.exchangeFailuresPerAddress),
      exchangeFailures('key', settings.exchangeFailuresPerKey),
    ],
    'failed key exchanges from this address or for this key',
    'exchange_failures',
    logger,
  );
  // Per address only: a budget per flow would let anyone lock a flow's real sender out.
  const flows = new FailureGuard(
    [failures('flow-failures:address', settings.flowFailuresPerAddress)],
    'refused flow requests from this address',
    'flow_failures',
    logger,
  );
  return new RateLimits(settings, limiters, exchange, flows, budgets, logger, () => pool.end());
}

/**
 * Brute force on unauthenticated doors: failed attempts (a wrong API key at the exchange, a bad
 * signature or unknown flow id at an inbound flow) are counted per budget key (client address,
 * the tried key's hash), in every replica together. Once any budget is spent, attempts with that
 * key get 429 + Retry-After until the window passes, right or wrong.
 */
export class FailureGuard {
  constructor(
    private readonly budgets: RateLimiterAbstract[],
    /** What is counted, for the 429's detail: "failed key exchanges from this address or for this key". */
    private readonly what: string,
    private readonly metricClass: string,
    private readonly logger: Logger,
  ) {}

  /** 429 when any of `keys` (one per budget, in order) has used up its failures. */
  async check(...keys: string[]): Promise<void> {
    try {
      const results = await Promise.all(this.budgets.map((budget, i) => budget.get(keys[i]!)));
      const blocked = results.filter((r): r is RateLimiterRes => r !== null && r.remainingPoints <= 0);
      if (blocked.length === 0) return;
      const retryAfter = Math.max(1, Math.ceil(Math.max(...blocked.map((r) => r.msBeforeNext)) / 1000));
      rateLimitRejections.inc({ class: this.metricClass });
      throw rateLimited(`Too many ${this.what}. Retry after ${retryAfter} seconds.`, retryAfter);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      this.logger.warn({ err }, `${this.metricClass} limit store failed; request allowed (fail open)`);
    }
  }

  /** Counts one failed attempt against every budget. */
  async failed(...keys: string[]): Promise<void> {
    await Promise.all(this.budgets.map((budget, i) => budget.penalty(keys[i]!, 1))).catch((err: unknown) =>
      this.logger.warn({ err }, `${this.metricClass} limit store failed; failure not counted`),
    );
  }
}

/**
 * Counts the authenticated caller's request against `cls` (429 with `Retry-After`
 * when spent). Runs right after authentication, so requests later refused
 * (403, 404, 422, 400, 409) count too; unauthenticated ones cannot be attributed.
 */
export function rateLimit(limits: RateLimits, cls: RateLimitClass): RequestHandler {
  return async (req, _res, next) => {
    if (req.caller) await limits.consume(cls, req.caller);
    next();
  };
}

/**
 * The classes a route counts against: every `/api/tasks*` route counts as
 * 'tasks' (nobody can forget it), and a route may add a class with its `rateLimit` field.
 */
export function rateLimitClassesOf(route: { path: string; rateLimit?: RateLimitClass }): RateLimitClass[] {
  const classes = new Set<RateLimitClass>();
  if (route.path.startsWith('/api/tasks')) classes.add('tasks');
  if (route.rateLimit) classes.add(route.rateLimit);
  return [...classes];
}
