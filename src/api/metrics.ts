import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/client.ts';
import { countActiveRuns } from '../db/runs.ts';
import { HttpError } from './errors.ts';

/**
 * The api's Prometheus metrics, one registry per process. Counters count what this
 * process did (sum them over replicas); `ars_runs_active` is read from PostgreSQL at
 * scrape time, so every replica reports the same cluster-wide value (take max, not sum).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpDuration = new Histogram({
  name: 'ars_http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern and status code (streams: until the stream ends)',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
  registers: [registry],
});

export const runsStarted = new Counter({
  name: 'ars_runs_started_total',
  help: 'Runs this api process stored and started (idempotent replays not counted), by mode',
  labelNames: ['mode'] as const,
  registers: [registry],
});

export const runsEndedByApi = new Counter({
  name: 'ars_runs_ended_total',
  help: 'Runs this api process ended itself (status failed: a workflow that could not be started; status deleted: an active run of a deleted task); the worker counts the ends its workflows store under the same name',
  labelNames: ['status', 'mode'] as const,
  registers: [registry],
});

export const openStreams = new Gauge({
  name: 'ars_sse_streams_open',
  help: 'SSE streams open in this api process',
  registers: [registry],
});

export const relayLag = new Histogram({
  name: 'ars_event_relay_lag_seconds',
  help: "From an event's created_at (stored) to its frame written to a client, for events stored while the stream was open",
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const rateLimitRejections = new Counter({
  name: 'ars_rate_limit_rejections_total',
  help: 'Requests refused with 429 by a rate limit or stream cap, by class',
  labelNames: ['class'] as const,
  registers: [registry],
});

/**
 * `ars_runs_active{status,mode}`: non-terminal runs in the database, counted at scrape
 * time (one indexed query on runs(status, created_at)), so the value is right however
 * many api and worker processes there are and whichever of them dies.
 */
export function watchActiveRuns(db: Db): void {
  if (registry.getSingleMetric('ars_runs_active')) registry.removeSingleMetric('ars_runs_active');
  new Gauge({
    name: 'ars_runs_active',
    help: 'Runs not yet completed, failed or cancelled, by status and mode (cluster-wide, from the database)',
    labelNames: ['status', 'mode'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      // While PostgreSQL does not answer (2 s), the series are left out; the rest of the scrape still works.
      let timer: NodeJS.Timeout | undefined;
      const rows = await Promise.race([
        countActiveRuns(db),
        new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 2000))),
      ]).catch(() => undefined);
      clearTimeout(timer);
      for (const r of rows ?? []) this.set({ status: r.status, mode: r.mode }, r.count);
    },
  });
}

/** Times every request under its route pattern (`/api/tasks/:taskId`, never the raw URL). */
export const httpMetrics: RequestHandler = (req, res, next) => {
  const end = httpDuration.startTimer();
  res.once('close', () => {
    // req.route is the matched route; unmatched requests (404s, probes of random paths) share one label.
    const route = (req.route as { path?: string } | undefined)?.path;
    end({
      method: req.method,
      route: route ? `${req.baseUrl}${route}` : 'unmatched',
      status_code: String(res.statusCode),
    });
  });
  next();
};

/** GET /metrics in the Prometheus text format; with METRICS_TOKEN set, only for `Authorization: Bearer <token>`. */
export function metricsEndpoint(token: string | undefined): RequestHandler {
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  return async (req, res, next) => {
    if (expected) {
      const given = Buffer.from(req.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        next(new HttpError(401, 'Metrics need Authorization: Bearer <METRICS_TOKEN>'));
        return;
      }
    }
    try {
      res.type(registry.contentType).send(await registry.metrics());
    } catch (err) {
      next(new HttpError(503, `Metrics unavailable: ${(err as Error).message}`));
    }
  };
}
