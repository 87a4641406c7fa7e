import { requestLogFields } from '../api/request-log-context.ts';
import { startApi } from '../api/server.ts';
import { loadConfigOrExit } from '../config.ts';
import { createDb } from '../db/client.ts';
import { ensureDatabase } from '../embedded/postgres.ts';
import { createLogger } from '../logger.ts';
import { stopWhenParentGone } from './parent.ts';

/** The api process: HTTP + SSE. Stateless; run as many as you like. */
const config = loadConfigOrExit();
const logger = createLogger('api', config.logLevel, { context: requestLogFields, format: config.logFormat });
const database = await ensureDatabase(config, (m) => logger.info(m));
const api = await startApi(config, database.url, createDb(database.url), logger);
logger.info({ url: api.url }, 'api listening');

// SIGTERM (a deploy, a scale-down): drain, so clients move to another replica without losing an event.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => drain(signal));
stopWhenParentGone(() => drain('npm start is gone'));

function drain(why: string): void {
  logger.info({ signal: why, graceMs: config.shutdownGraceMs }, 'api draining');
  void api.close(config.shutdownGraceMs).then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error({ err }, 'api did not close cleanly');
      process.exit(1);
    },
  );
}
