import { randomBytes } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { projectRoot } from '../../src/config.ts';
import { canConnect, withDatabase } from '../../src/infra/postgres.ts';
import { isAlive } from '../../src/infra/processes.ts';
import { freeListenPort } from '../support/ports.ts';

/**
 * `npm start`'s process (src/main/start.ts), on the suite's Temporal server and PostgreSQL (its
 * own database, which it creates), with its own task queue, port and data directory. Ctrl-C
 * reaches it up to three times (the terminal's process group, then npm and tsx forwarding it):
 * it must stop what it started once, cleanly, whatever the count.
 */
const database = `start_cmd_${randomBytes(5).toString('hex')}`;
const dataDir = mkdtempSync(path.join(tmpdir(), 'ars-start-'));
const dataDirs = [dataDir];
/** What the test started, stopped here if a failed assertion left it running. */
const started: number[] = [];

afterAll(async () => {
  for (const pid of started) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  const client = new pg.Client({ connectionString: withDatabase(inject('databaseUrl'), 'postgres') });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await client.end();
});

/** The suite's Temporal server, a task queue, port and log level of the test's own. */
function serviceEnv(port: number): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: `start-cmd-${randomBytes(5).toString('hex')}`,
    API_PORT: String(port),
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
  };
}

/** The command line of a process. */
function commandOf(pid: number): string {
  return execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim();
}

/** The pids of `pid`'s children. */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when there are none
  }
}

describe('the start command', () => {
  it('three SIGINTs at once: it stops its api and worker and exits 0', { timeout: 120_000 }, async () => {
    const port = await freeListenPort();
    const start = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src', 'main', 'start.ts')], {
      cwd: projectRoot,
      env: { ...process.env, ...serviceEnv(port), DATABASE_URL: withDatabase(inject('databaseUrl'), database), DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(start.pid!);
    let output = '';
    start.stdout.on('data', (d: Buffer) => (output += d.toString()));
    start.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => start.once('exit', (code, signal) => resolve({ code, signal })));
    await expect.poll(() => output, { timeout: 100_000, interval: 500 }).toContain('Agent Run Service is up.');

    const children = childrenOf(start.pid!);
    started.push(...children);
    const commands = children.map(commandOf);
    const serviceOf = (name: string) => children.filter((_, i) => commands[i]!.endsWith(path.join('src', 'main', `${name}.ts`)));
    const services = [...serviceOf('api'), ...serviceOf('worker')];
    expect(services, commands.join('\n')).toHaveLength(2);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    for (let i = 0; i < 3; i++) start.kill('SIGINT');

    expect(await exited).toEqual({ code: 0, signal: null });
    expect(services.filter(isAlive)).toEqual([]);
    // Its other child, tsx's esbuild service, ends by itself once its parent's pipe closes.
    await expect.poll(() => children.filter(isAlive), { timeout: 10_000 }).toEqual([]);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('a closed terminal (SIGHUP to its whole process group, its output gone): it stops everything, its embedded PostgreSQL too', { timeout: 180_000 }, async () => {
    const [port, pgPort] = [await freeListenPort(), await freeListenPort()];
    const ownDataDir = mkdtempSync(path.join(tmpdir(), 'ars-start-embedded-'));
    chmodSync(ownDataDir, 0o755); // as root, the embedded PostgreSQL runs as the `postgres` user, who must reach its directory
    dataDirs.push(ownDataDir);
    const env: NodeJS.ProcessEnv = { ...process.env, ...serviceEnv(port), DATA_DIR: ownDataDir, EMBEDDED_POSTGRES_PORT: String(pgPort) };
    delete env.DATABASE_URL;
    // Its own process group, as a terminal gives the command it runs.
    const start = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src', 'main', 'start.ts')], { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    started.push(start.pid!);
    let output = '';
    start.stdout.on('data', (d: Buffer) => (output += d.toString()));
    start.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => start.once('exit', (code, signal) => resolve({ code, signal })));
    await expect.poll(() => output, { timeout: 150_000, interval: 500 }).toContain('Agent Run Service is up.');
    const postgres = execFileSync('pgrep', ['-f', '--', `-D ${path.join(ownDataDir, 'postgres')}`], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
    expect(postgres).toHaveLength(1);
    const group = [...childrenOf(start.pid!), ...postgres];
    started.push(...group);
    const embeddedUrl = `postgresql://postgres:postgres@127.0.0.1:${pgPort}/postgres`;
    expect(await canConnect(embeddedUrl)).toBe(true);

    start.stdout.destroy();
    start.stderr.destroy();
    process.kill(-start.pid!, 'SIGHUP');

    expect((await exited).signal).toBeNull(); // it ran its shutdown instead of dying of the signal
    await expect.poll(() => group.filter(isAlive), { timeout: 20_000 }).toEqual([]);
    expect(await canConnect(embeddedUrl)).toBe(false);
  });
});
