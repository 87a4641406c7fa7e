import type { RequestHandler } from 'express';
import pg from 'pg';
import type { Logger } from 'pino';
import { RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../../config.ts';
import { HttpError } from '../errors.ts';
import type { Caller } from './authenticate.ts';

/** The spec's two limited classes: starting runs, and everything under /api/tasks. */
export type RateLimitClass = 'runs' | 'tasks';

export type RateLimitSettings = Config['rateLimits'];

/** Counters shared by every api replica: one row per key in the `rate_limits` table. */
export const RATE_LIMIT_TABLE = 'rate_limits';

const WHAT: Record<RateLimitClass, string> = {
  runs: 'run requests (POST /api/run, POST /api/run/async)',
  tasks: 'task requests (/api/tasks…)',
};

/** The 429 as documented in the OpenAPI document: the default limits, which operators may change. */
export const RATE_LIMIT_DOCS: Record<RateLimitClass, string> = {
  runs: 'run creation (POST /api/run, POST /api/run/async): 30 requests per minute by default',
  tasks: 'task requests (/api/tasks…): 100 requests per minute by default',
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
    private readonly logger: Logger,
    private readonly onClose: () => Promise<void> = async () => {},
  ) {}

  /**
   * Counts one request of `caller`; throws the 429 when the window's budget is spent.
   * If the store fails (database unreachable) the request is let through with a
   * warning: a limiter outage must not become an api outage, and every limited
   * route needs the same database anyway.
   */
  async consume(cls: RateLimitClass, caller: Pick<Caller, 'orgId' | 'userId'>): Promise<void> {
    const key = rateLimitKey(cls, caller);
    try {
      await this.limiters[cls].consume(key);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) {
        this.logger.warn({ err, key }, 'rate limit store failed; request allowed (fail open)');
        return;
      }
      const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw new HttpError(429, `${this.describe(cls)} Retry after ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`, {
        'Retry-After': String(retryAfter),
      });
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
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4, connectionTimeoutMillis: 2000, query_timeout: 2000 });
  pool.on('error', (err) => logger.warn({ err: err.message }, 'rate limit pool connection error'));
  const limiter = (cls: RateLimitClass) =>
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true,
      keyPrefix: '',
      points: settings[cls],
      duration: settings.windowSeconds,
      // One timer per process is enough to delete rows expired over an hour ago.
      clearExpiredByTimeout: cls === 'runs',
    });
  return new RateLimits(settings, { runs: limiter('runs'), tasks: limiter('tasks') }, logger, () => pool.end());
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
