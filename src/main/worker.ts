import { loadConfigOrExit } from '../config.ts';
import { createDb } from '../db/client.ts';
import { ensureDatabase } from '../infra/postgres.ts';
import { createLogger } from '../logger.ts';
import { startWorker } from '../worker/run-worker.ts';

/** The worker process: run workflows and their activities. */
const config = loadConfigOrExit();
const logger = createLogger('worker', config.logLevel);
const database = await ensureDatabase(config, (m) => logger.info(m));
const db = createDb(database.url);
const handle = await startWorker({ db, config, logger, env: process.env, deltaFlushMs: 25 });
logger.info({ taskQueue: config.temporal.taskQueue, sandboxHost: handle.host.hostId, hostTaskQueue: handle.host.taskQueue }, 'worker running');

// SIGTERM: finish or hand back what runs here (see startWorker's shutdownGraceTime), then exit.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'worker shutting down');
    void handle.shutdown();
  });
}
await handle.done;
await db.$disconnect();
logger.info('worker stopped');
