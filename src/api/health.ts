import type { Express } from 'express';
import { pingDatabase } from '../db/client.ts';
import type { ApiDeps } from './deps.ts';

/** Each readiness check gets this long; a dependency slower than that counts as down. */
export const READY_CHECK_TIMEOUT_MS = 1500;

type CheckState = 'up' | 'down';

/**
 * /healthz: liveness, the process answers (no dependency is asked: a database outage must
 * not get every api restarted). /readyz: readiness, PostgreSQL and Temporal answer and
 * the LISTEN connection that feeds live streams is up; 503 names what is down (or says the
 * process is draining).
 * Both are outside the request log, the rate limits and authentication.
 */
export function mountHealth(app: Express, deps: Pick<ApiDeps, 'db' | 'temporal' | 'hub' | 'drain'>): void {
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    // A draining process (SIGTERM) is not ready: load balancers take it out before it stops listening.
    if (deps.drain.draining) return void res.status(503).json({ status: 'draining', down: ['draining'] });
    const [postgres, temporal] = await Promise.all([
      check(() => pingDatabase(deps.db)),
      check(() =>
        deps.temporal.connection.withDeadline(Date.now() + READY_CHECK_TIMEOUT_MS, () =>
          deps.temporal.workflowService.getSystemInfo({}),
        ),
      ),
    ]);
    const checks: Record<string, CheckState> = { postgres, temporal, listen: deps.hub.listening ? 'up' : 'down' };
    const down = Object.keys(checks).filter((k) => checks[k] === 'down');
    res
      .status(down.length ? 503 : 200)
      .json({ status: down.length ? 'unavailable' : 'ready', checks, ...(down.length ? { down } : {}) });
  });
}

async function check(probe: () => Promise<unknown>): Promise<CheckState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckState>((resolve) => {
    timer = setTimeout(() => resolve('down'), READY_CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      probe().then(
        (): CheckState => 'up',
        (): CheckState => 'down',
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
