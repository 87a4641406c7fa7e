import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { ModelProvider } from './models/provider.ts';

/** What every activity needs, built once per worker process and injected. */
export interface ActivityDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /** Environment for secrets named by agents (api_key_env). */
  env: NodeJS.ProcessEnv;
  /** Overrides the built-in offline model (tests make it fast). */
  offlineModel?: ModelProvider;
  /** How long token deltas are coalesced into one stored event. */
  deltaFlushMs: number;
}
