import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import pg from 'pg';
import { loadConfig, projectRoot } from '../../src/config.ts';
import { serviceEnv, tsxServiceArgs } from '../../src/processes/service-args.ts';
import { migrate } from '../../src/db/migrate.ts';
import { ensureDatabase, createDatabaseIfMissing, withDatabase } from '../../src/embedded/postgres.ts';
import { stopChild, waitUntil } from '../../src/processes/lifecycle.ts';
import { ensureTemporalBinary, fairnessFlags } from '../../src/embedded/temporal-dev-server.ts';
import { unmountDisksBelow } from '../../src/sandbox/workspace-disk.ts';
import { runSearchAttributes } from '../../src/shared/search-attributes.ts';
import { freeListenPort } from './ports.ts';
import { startScript } from './start-scripts.ts';

/**
 * Every stack's throwaway database is named `ars_test_…` (a bench's `ars_test_bench_…`): stacks
 * of any checkout may share one embedded PostgreSQL server, and the last to leave stops it.
 */
const databaseName = (purpose: StackOptions['purpose']) =>
  `ars_test_${purpose === 'test' ? '' : `${purpose}_`}${randomBytes(4).toString('hex')}`;

export interface StackOptions {
  /** Who owns the stack: names its database, task queue and log lines. */
  purpose: 'test' | 'bench';
  /** Environment of the api and worker processes, on top of the stack's own settings. */
  env: Record<string, string>;
  /** How the api and worker run: from the sources under tsx (default), or compiled, as in production. */
  processes?: ServiceMode;
  /**
   * The dev server's dynamic-config flags; default: fairness on, as `npm start` runs it. bench/fairness.ts
   * passes others to measure the same load on a server without fairness.
   */
  temporalFlags?: string[];
}

/**
 * `tsx`: src/main/<name>.ts through the tsx loader (tests: no build step). `compiled`: the
 * production command, `npm run start:api` / `start:worker` (node flags included), on dist/ from `npm run build`.
 */
export type ServiceMode = 'tsx' | 'compiled';

/** The node arguments that start the api or worker in `mode`. */
export function serviceArgs(name: 'api' | 'worker', mode: ServiceMode): string[] {
  if (mode === 'tsx') return tsxServiceArgs(name);
  const script = startScript(name);
  const [node, ...args] = script.command;
  const assigned = script.env.map(([k, v]) => `${k}=${v}`).join(' ');
  const expected = Object.entries(serviceEnv(name)).map(([k, v]) => `${k}=${v}`);
  if (node !== 'node' || assigned !== expected.join(' '))
    throw new Error(`package.json start:${name} should be "${[...expected, 'node'].join(' ')} …": ${script.text}`);
  return args.map((arg) => (arg.startsWith('-') ? arg : path.join(projectRoot, arg)));
}

export interface Stack {
  databaseUrl: string;
  apiUrl: string;
  temporalAddress: string;
  taskQueue: string;
  jwtSecret: string;
  secretsKey: string;
  api: ChildProcess;
  worker: ChildProcess;
  /** Stops the processes and the Temporal server, drops the database (and the embedded server if we were the last). */
  teardown(): Promise<void>;
}

/**
 * The real stack: a Temporal dev server (the CLI binary the project installs,
 * headless), a fresh PostgreSQL database, and the api and worker started as
 * processes exactly as the start command starts them.
 */
export async function startStack({
  purpose,
  env: extraEnv,
  processes = 'tsx',
  temporalFlags = fairnessFlags(),
}: StackOptions): Promise<Stack> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `ars-${purpose}-`));
  const config = loadConfig({ ...process.env, DATA_DIR: process.env.DATA_DIR ?? path.join(projectRoot, '.data') });
  const server = await ensureDatabase(config);
  const dbName = databaseName(purpose);
  const adminUrl = withDatabase(server.url, 'postgres');
  await createDatabaseIfMissing(adminUrl, dbName);
  const databaseUrl = withDatabase(server.url, dbName);
  await migrate(databaseUrl);

  const temporal = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: ensureTemporalBinary() },
      searchAttributes: runSearchAttributes,
      ip: '127.0.0.1',
      extraArgs: temporalFlags,
    },
  });
  const temporalAddress = temporal.address;
  const taskQueue = `${purpose}-runs-${randomBytes(3).toString('hex')}`;
  const jwtSecret = randomBytes(32).toString('base64url');
  const secretsKey = randomBytes(32).toString('base64url');
  const apiPort = await freeListenPort();
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    API_PORT: String(apiPort),
    DATA_DIR: dataDir,
    JWT_SECRET: jwtSecret,
    SECRETS_KEY: secretsKey,
    // No fixed metrics port: several stacks and workers share this machine.
    WORKER_METRICS_PORT: '0',
    ...extraEnv,
  };
  const worker = spawnService('worker', env, purpose, processes);
  const api = spawnService('api', env, purpose, processes);
  const apiUrl = `http://127.0.0.1:${apiPort}`;

  const teardown = async () => {
    await Promise.all([api, worker].map((child) => stopChild(child)));
    unmountDisksBelow(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
    await temporal.teardown();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(dbName)} WITH (FORCE)`);
    // Another test or bench run may be using the same embedded server: leave it to the last one.
    // Count only stacks still connected: databases left by an interrupted run must not keep the server up.
    const others = await admin.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname LIKE 'ars\_test\_%' AND pid <> pg_backend_pid()`,
    );
    await admin.end();
    if (others.rowCount === 0) await server.stop?.();
  };

  try {
    await waitUntil(async () => (await fetch(`${apiUrl}/healthz`).catch(() => undefined))?.ok === true, 90_000, 'api');
  } catch (err) {
    await teardown();
    throw err;
  }
  return { databaseUrl, apiUrl, temporalAddress, taskQueue, jwtSecret, secretsKey, api, worker, teardown };
}

function spawnService(
  name: 'api' | 'worker',
  env: NodeJS.ProcessEnv,
  purpose: string,
  mode: ServiceMode,
): ChildProcess {
  // SERVICE_CPU_PROF_DIR (bench and profiling only): each service writes a V8 CPU profile there when it stops.
  const profile = process.env.SERVICE_CPU_PROF_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SERVICE_CPU_PROF_DIR}`]
    : [];
  const child = spawn(process.execPath, [...profile, ...serviceArgs(name, mode)], {
    env: { ...env, ...serviceEnv(name) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM')
      console.error(`${purpose} ${name} process exited: code ${code}, signal ${signal}`);
  });
  return child;
}
