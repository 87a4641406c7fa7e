import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { loadConfig, projectRoot } from '../src/config.ts';
import { migrate } from '../src/infra/migrate.ts';
import { ensureDatabase, createDatabaseIfMissing } from '../src/infra/postgres.ts';
import { ensureTemporalBinary } from '../src/infra/temporal-cli.ts';
import { runSearchAttributes } from '../src/shared/search-attributes.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    apiUrl: string;
    temporalAddress: string;
    taskQueue: string;
    jwtSecret: string;
    heartbeatMs: number;
  }
}

/** Test heartbeats come every second, so a test can watch them without waiting 15 s. */
const HEARTBEAT_MS = 1000;

/**
 * The real stack for every test file: a Temporal dev server (the CLI binary the
 * project installs, headless), a fresh PostgreSQL database, and the api and
 * worker started as processes exactly as the start command starts them.
 */
export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ars-test-'));
  const config = loadConfig({ ...process.env, DATA_DIR: process.env.DATA_DIR ?? path.join(projectRoot, '.data') });
  const server = await ensureDatabase(config);
  const dbName = `ars_test_${randomBytes(4).toString('hex')}`;
  const adminUrl = withDatabase(server.url, 'postgres');
  await createDatabaseIfMissing(adminUrl, dbName);
  const databaseUrl = withDatabase(server.url, dbName);
  await migrate(databaseUrl);

  const temporal = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: ensureTemporalBinary() },
      searchAttributes: runSearchAttributes,
      ip: '127.0.0.1',
    },
  });
  const temporalAddress = temporal.address;
  const taskQueue = `test-runs-${randomBytes(3).toString('hex')}`;
  const jwtSecret = randomBytes(32).toString('base64url');
  const apiPort = 20000 + Math.floor(Math.random() * 20000);
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    API_PORT: String(apiPort),
    DATA_DIR: dataDir,
    JWT_SECRET: jwtSecret,
    HEARTBEAT_INTERVAL_MS: String(HEARTBEAT_MS),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    MODEL_PROVIDER: 'offline',
  };
  const children = [spawnService('worker', env), spawnService('api', env)];
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  await waitUntil(async () => (await fetch(`${apiUrl}/healthz`).catch(() => undefined))?.ok === true, 90_000, 'api');

  project.provide('databaseUrl', databaseUrl);
  project.provide('apiUrl', apiUrl);
  project.provide('temporalAddress', temporalAddress);
  project.provide('taskQueue', taskQueue);
  project.provide('jwtSecret', jwtSecret);
  project.provide('heartbeatMs', HEARTBEAT_MS);

  return async () => {
    await Promise.all(children.map(stop));
    await temporal.teardown();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(dbName)} WITH (FORCE)`);
    // Another test run may be using the same embedded server: leave it to the last one.
    const others = await admin.query(`SELECT 1 FROM pg_database WHERE datname LIKE 'ars\_test\_%'`);
    await admin.end();
    if (others.rowCount === 0) await server.stop?.();
    rmSync(dataDir, { recursive: true, force: true });
  };
}

function spawnService(name: 'api' | 'worker', env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src', 'main', `${name}.ts`)], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') console.error(`test ${name} process exited: code ${code}, signal ${signal}`);
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000}s`);
}
