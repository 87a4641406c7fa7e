import { Runtime, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { knownOwnerOf } from './activity-log-context.ts';

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * The Temporal SDK's logger as a pino child (`component: "temporal"`): the SDK's own
 * lines, the native core's (forwarded at WARN and above) and the workflow `log` calls
 * all become our JSON lines, secrets scrubbed. A workflow id is a run id here, so each
 * line about a run carries `runId` (ours) and `workflowId`, and its org, task and agent
 * ids once this worker has run one of its activities (activity-log-context.ts).
 * Activity task tokens are left out (long, and they act on the activity).
 */
export function temporalLogger(logger: Logger): TemporalLogger {
  const child = logger.child({ component: 'temporal' });
  const write = (level: LogLevel, message: string, meta: LogMetadata = {}) => {
    const {
      runId,
      workflowId,
      taskToken: _token,
      ...rest
    } = meta as LogMetadata & { runId?: unknown; workflowId?: unknown; taskToken?: unknown };
    const fields: Record<string, unknown> = { ...rest };
    if (typeof workflowId === 'string')
      Object.assign(fields, knownOwnerOf(workflowId), { workflowId, runId: workflowId });
    if (runId !== undefined) fields.workflowRunId = runId;
    child[LEVELS[level]](fields, message);
  };
  return {
    log: write,
    trace: (m, meta) => write('TRACE', m, meta),
    debug: (m, meta) => write('DEBUG', m, meta),
    info: (m, meta) => write('INFO', m, meta),
    warn: (m, meta) => write('WARN', m, meta),
    error: (m, meta) => write('ERROR', m, meta),
  };
}

/**
 * Installs the process's Temporal Runtime (once, before any connection): logs into
 * pino, and the SDK's metrics (with ours from activities' metricMeter) on a Prometheus
 * endpoint at WORKER_METRICS_HOST:WORKER_METRICS_PORT/metrics (port 0: no endpoint).
 */
export function installWorkerRuntime(config: Config, logger: Logger): void {
  const { host, port } = config.observability.workerMetrics;
  try {
    installRuntime(logger, host, port);
  } catch (err) {
    // A second worker on one host with the same port: say which setting to change.
    throw new Error(
      `Could not start the worker's metrics endpoint on ${host}:${port} (WORKER_METRICS_HOST/WORKER_METRICS_PORT; give each worker on a host its own port, or 0 for none): ${(err as Error).message}`,
    );
  }
}

function installRuntime(logger: Logger, host: string, port: number): void {
  Runtime.install({
    logger: temporalLogger(logger),
    telemetryOptions: {
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      ...(port > 0
        ? {
            metrics: {
              prometheus: {
                bindAddress: `${host.includes(':') ? `[${host}]` : host}:${port}`,
                countersTotalSuffix: true,
                useSecondsForDurations: true,
              },
            },
          }
        : {}),
    },
  });
}
