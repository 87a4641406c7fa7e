import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { inject } from 'vitest';
import { projectRoot } from '../../src/config.ts';
import { createDatabaseIfMissing, withDatabase } from '../../src/embedded/postgres.ts';
import { stopChild } from '../../src/processes/lifecycle.ts';
import { terminate } from './processes.ts';

export interface ApiProcess {
  url: string;
  /** Every JSON log line the process wrote so far. */
  logs: Record<string, unknown>[];
  /** Every line it wrote to stdout or stderr so far, as written (JSON or not); stderr is also passed on to ours. */
  output: string[];
  /** SIGTERM, as a deploy sends it; resolves with the exit code once the process has drained and exited. */
  terminate(): Promise<number | null>;
  /** SIGKILL, a crash: no drain, open connections are cut. Resolves once the process is gone. */
  kill(): Promise<void>;
  close(): Promise<void>;
}

/**
 * One more api replica, started exactly as the global setup starts the shared one
 * (same Temporal, task queue and JWT secret, so tokens from the shared api work),
 * with `env` on top. It listens on a free port and its logs are collected.
 */
export async function startApiProcess(env: Record<string, string> = {}): Promise<ApiProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src', 'main', 'api.ts')], {
    env: {
      ...process.env,
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: inject('taskQueue'),
      JWT_SECRET: inject('jwtSecret'),
      SECRETS_KEY: inject('secretsKey'),
      API_PORT: '0',
      LOG_LEVEL: 'info',
      MODEL_PROVIDER: 'offline',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  const output: string[] = [];
  child.stderr!.pipe(process.stderr);
  createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // not left running (and holding database connections) after a failed start
      reject(new Error('extra api did not start within 60 s'));
    }, 60_000);
    child.once('exit', (code) => reject(new Error(`extra api exited with code ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      logs.push(entry);
      if (entry.msg === 'api listening') {
        clearTimeout(timer);
        resolve(String(entry.url));
      }
    });
  });
  return {
    url,
    logs,
    output,
    terminate: () => terminate(child),
    kill: () => stopChild(child, 'SIGKILL'),
    close: () => stopChild(child),
  };
}

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database on the test PostgreSQL server, for an api whose store must fail. */
export async function createScratchDatabase(): Promise<ScratchDatabase> {
  const adminUrl = withDatabase(inject('databaseUrl'), 'postgres');
  const name = `ars_scratch_${randomBytes(4).toString('hex')}`;
  await createDatabaseIfMissing(adminUrl, name);
  return {
    url: withDatabase(inject('databaseUrl'), name),
    async drop() {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      await admin.end();
    },
  };
}
