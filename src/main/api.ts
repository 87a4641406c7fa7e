import { requestLogFields } from '../api/request-log-context.ts';
import { startApi } from '../api/server.ts';
import { loadConfig } from '../config.ts';
import { ensureDatabase } from '../infra/postgres.ts';
import { createLogger } from '../logger.ts';

/** The api process: HTTP + SSE. Stateless; run as many as you like. */
const config = loadConfig();
const logger = createLogger('api', config.logLevel, requestLogFields);
const database = await ensureDatabase(config, (m) => logger.info(m));
const api = await startApi(config, database.url, logger);
logger.info({ url: api.url }, 'api listening');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void api.close().then(() => process.exit(0));
  });
}
