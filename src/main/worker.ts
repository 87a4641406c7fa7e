import { loadConfigOrExit } from '../config.ts';
import { createDb } from '../db/client.ts';
import { ensureDatabase } from '../embedded/postgres.ts';
import { createLogger } from '../logger.ts';
import { startTracing } from '../observability/tracing.ts';
import { activityLogFields } from '../worker/activity-log-context.ts';
import { startWorker } from '../worker/run-worker.ts';
import { installWorkerRuntime } from '../worker/runtime.ts';
import { stopWhenParentGone } from './parent.ts';

/** The worker process: run workflows and their activities. */
const config = loadConfigOrExit();
const logger = createLogger('worker', config.logLevel, { context: activityLogFields, format: config.logFormat });
installWorkerRuntime(config, logger);
const tracing = await startTracing(config, 'ars-worker');
const database = await ensureDatabase(config, (m) => logger.info(m));
const db = createDb(database.url);
const handle = await startWorker({ db, config, logger, env: process.env, deltaFlushMs: 25 }, tracing);
const { host, port } = config.observability.workerMetrics;
logger.info(
  {
    taskQueue: config.temporal.taskQueue,
    sandboxHost: handle.host.hostId,
    hostTaskQueue: handle.host.taskQueue,
    deploymentName: handle.version.deploymentName,
    buildId: handle.version.buildId,
    metrics: port > 0 ? `http://${host}:${port}/metrics` : 'off',
    tracing: tracing ? 'on' : 'off',
  },
  'worker running',
);
process.send?.({ type: 'ready' }); // npm start prints its banner once the worker polls

// SIGTERM: finish or hand back what runs here (see startWorker's shutdownGraceTime), then exit.
const stop = (why: string) => {
  logger.info({ signal: why, graceMs: config.shutdownGraceMs }, 'worker shutting down');
  void handle.shutdown();
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop(signal));
stopWhenParentGone(() => stop('npm start is gone'));
await handle.done;
await db.$disconnect();
await tracing?.shutdown();
logger.info('worker stopped');
