import { randomBytes } from 'node:crypto';
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { projectRoot } from '../../src/config.ts';
import { canConnect, withDatabase } from '../../src/embedded/postgres.ts';
import { isAlive } from '../../src/processes/lifecycle.ts';
import { unmountDisksBelow, WorkspaceDisk } from '../../src/sandbox/workspace-disk.ts';
import { readSse } from '../support/http.ts';
import { freeListenPort } from '../support/ports.ts';
import { eventually } from '../support/eventually.ts';

/**
 * `npm start`'s process (src/main/start.ts), on the suite's Temporal server and PostgreSQL (a
 * database of its own, which it creates) or its own embedded PostgreSQL, with its own task queue, port
 * and data directory. Ctrl-C reaches it up to three times (the terminal's process group, then npm
 * and tsx forwarding it), a closed terminal sends SIGHUP to the whole group: it must stop what it
 * started, once, whatever the count. A service it runs that dies is started again.
 */
/** The databases it created on the suite's PostgreSQL, one a launch. */
const databases: string[] = [];
const dataDirs: string[] = [];
/** What the test started, stopped here if a failed assertion left it running. */
const started: number[] = [];

afterAll(async () => {
  for (const pid of started) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const dir of dataDirs) {
    unmountDisksBelow(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
  const client = new pg.Client({ connectionString: withDatabase(inject('databaseUrl'), 'postgres') });
  await client.connect();
  for (const database of databases) await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await client.end();
});

function newDataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ars-start-'));
  chmodSync(dir, 0o755); // as root, an embedded PostgreSQL runs as the `postgres` user, who must reach its directory
  dataDirs.push(dir);
  return dir;
}

interface Launched {
  start: ChildProcessWithoutNullStreams;
  port: number;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs start.ts (in a process group of its own with `detached`, as a terminal runs a command) until it says it is up. */
async function launch(env: Record<string, string>, { detached = false } = {}): Promise<Launched> {
  const port = await freeListenPort();
  const database = `start_cmd_${randomBytes(5).toString('hex')}`;
  databases.push(database);
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: `start-cmd-${randomBytes(5).toString('hex')}`,
    API_PORT: String(port),
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
    DATABASE_URL: withDatabase(inject('databaseUrl'), database),
    ...env,
  };
  if (env.DATABASE_URL === '') delete childEnv.DATABASE_URL;
  const start = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src', 'main', 'start.ts')], {
    cwd: projectRoot,
    env: childEnv,
    detached,
    stdio: 'pipe',
  });
  started.push(start.pid!);
  let output = '';
  start.stdout.on('data', (d: Buffer) => (output += d.toString()));
  start.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    start.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await eventually('the start command to be up', () => expect(output).toContain('Agent Run Service is up.'), {
    timeout: 150_000,
    interval: 500,
  });
  return { start, port, output: () => output, exited };
}

/** The file systems mounted below `dir`. */
function mountsBelow(dir: string): string[] {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((mountPoint) => mountPoint.startsWith(`${dir}/`));
}

/** The embedded PostgreSQL servers (postmasters) of a data directory. */
function postmastersOf(dataDir: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', '--', `-D ${path.join(dataDir, 'postgres')}`], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when there are none
  }
}

/** The command line of a process. */
function commandOf(pid: number): string {
  return execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim();
}

/** The pids of `pid`'s children. */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when there are none
  }
}

/** start.ts's api or worker process now. */
function serviceOf(start: Launched, name: 'api' | 'worker'): number | undefined {
  const children = childrenOf(start.start.pid!);
  started.push(...children);
  return children.find((pid) => commandOf(pid).endsWith(path.join('src', 'main', `${name}.ts`)));
}

describe('the start command', () => {
  it(
    'three SIGINTs at once: it stops its api and worker, unmounts its workspace disks and exits 0',
    { timeout: 180_000 },
    async () => {
      const dataDir = newDataDir();
      const launched = await launch({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
      // The banner comes after the worker's start-up lines, which would scroll it away.
      expect(launched.output().indexOf('"worker running"')).toBeGreaterThan(-1);
      expect(launched.output().indexOf('"worker running"')).toBeLessThan(launched.output().indexOf('is up.'));
      // A sandbox's workspace disk, as its worker mounts one (root and loop devices: .ci/run's machine has both).
      const disk = new WorkspaceDisk(
        path.join(dataDir, 'disks', 'org_x', 'agt_x.ext4'),
        path.join(dataDir, 'disks', 'org_x', 'agt_x'),
        8 * 1024 * 1024,
      );
      expect(await disk.mount(true)).toBe(true);
      expect(mountsBelow(dataDir)).toHaveLength(1);
      const children = childrenOf(launched.start.pid!);
      const services = [serviceOf(launched, 'api'), serviceOf(launched, 'worker')];
      expect(
        services.every((pid) => pid !== undefined),
        children.map(commandOf).join('\n'),
      ).toBe(true);
      expect((await fetch(`http://127.0.0.1:${launched.port}/healthz`)).status).toBe(200);
      // The console's sign-in page says where the demo key is (the file, never the key).
      const config = (await (await fetch(`http://127.0.0.1:${launched.port}/console/config.json`)).json()) as {
        demo_key_hint?: string;
      };
      expect(config.demo_key_hint).toContain(path.join(dataDir, 'demo-tenant.json'));
      expect(JSON.stringify(config)).not.toContain('ars_');
      for (let i = 0; i < 3; i++) launched.start.kill('SIGINT');

      expect(await launched.exited).toEqual({ code: 0, signal: null });
      expect(services.filter((pid) => isAlive(pid!))).toEqual([]);
      expect(mountsBelow(dataDir)).toEqual([]);
      // Its other child, tsx's esbuild service, ends by itself once its parent's pipe closes.
      await eventually('its other children to end', () => expect(children.filter(isAlive)).toEqual([]), {
        timeout: 10_000,
      });
      await expect(fetch(`http://127.0.0.1:${launched.port}/healthz`)).rejects.toThrow();
    },
  );

  it(
    'kill -9 of its worker, then of its api: it starts each again, and a run goes through them',
    { timeout: 180_000 },
    async () => {
      const launched = await launch({ DATA_DIR: newDataDir() });
      const apiUrl = `http://127.0.0.1:${launched.port}`;
      for (const name of ['worker', 'api'] as const) {
        const before = serviceOf(launched, name)!;
        process.kill(before, 'SIGKILL');
        const restarted = () => [undefined, before].includes(serviceOf(launched, name)) === false;
        await eventually('the service to be started again', () => expect(restarted()).toBe(true), {
          timeout: 30_000,
          interval: 250,
        });
        expect(launched.output()).toContain(`${name} exited (SIGKILL); starting it again`);
      }
      await eventually(
        'the api to be healthy',
        async () => expect((await fetch(`${apiUrl}/healthz`).catch(() => undefined))?.status).toBe(200),
        {
          timeout: 60_000,
          interval: 250,
        },
      );

      // The demo tenant it printed, through the restarted api and worker.
      const key = /Demo API key: (\S+)/.exec(launched.output())![1]!;
      const agentId = /Demo agent: +(\S+)/.exec(launched.output())![1]!;
      const exchange = await fetch(`${apiUrl}/api/v1/auth/exchange/agent-token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ api_key: key }),
      });
      const { access_token: token } = (await exchange.json()) as { access_token: string };
      const run = await fetch(`${apiUrl}/api/run`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'X-Agent-Id': agentId, 'Content-Type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'Hello after the restarts' }] }),
      });
      expect(run.status).toBe(200);
      expect((await readSse(run)).at(-1)!.data.type).toBe('RUN_FINISHED');

      launched.start.kill('SIGINT');
      expect(await launched.exited).toEqual({ code: 0, signal: null });
    },
  );

  it('kill -9 of the start process itself: its api and worker stop by themselves', { timeout: 180_000 }, async () => {
    const launched = await launch({ DATA_DIR: newDataDir() });
    const services = [serviceOf(launched, 'api')!, serviceOf(launched, 'worker')!];
    launched.start.kill('SIGKILL');
    await eventually('every service to end', () => expect(services.filter(isAlive)).toEqual([]), {
      timeout: 30_000,
    });
    await expect(fetch(`http://127.0.0.1:${launched.port}/healthz`)).rejects.toThrow();
  });

  it(
    'kill -9 of its embedded PostgreSQL: it starts it again, the api is ready again, and Ctrl-C still stops everything',
    { timeout: 180_000 },
    async () => {
      const [dataDir, pgPort] = [newDataDir(), await freeListenPort()];
      const launched = await launch(
        { DATA_DIR: dataDir, DATABASE_URL: '', EMBEDDED_POSTGRES_PORT: String(pgPort) },
        { detached: true },
      );
      const embeddedUrl = `postgresql://postgres:postgres@127.0.0.1:${pgPort}/postgres`;
      const [first] = postmastersOf(dataDir);
      process.kill(first!, 'SIGKILL');
      await eventually(
        'a new postmaster',
        () => expect(postmastersOf(dataDir).filter((pid) => pid !== first)).toHaveLength(1),
        { timeout: 60_000, interval: 500 },
      );
      started.push(...postmastersOf(dataDir), ...childrenOf(launched.start.pid!));
      await eventually(
        'the embedded PostgreSQL to accept connections',
        async () => expect(await canConnect(embeddedUrl)).toBe(true),
        { timeout: 30_000, interval: 500 },
      );
      expect(launched.output()).toContain('the embedded PostgreSQL is back');
      // The api and worker reconnect by themselves (their pools open new connections).
      await eventually(
        'the api to be ready',
        async () =>
          expect((await fetch(`http://127.0.0.1:${launched.port}/readyz`).catch(() => undefined))?.status).toBe(200),
        {
          timeout: 60_000,
          interval: 500,
        },
      );

      // Ctrl-C: SIGINT to the terminal's whole process group, the embedded PostgreSQL too, which is no crash.
      process.kill(-launched.start.pid!, 'SIGINT');
      expect(await launched.exited).toEqual({ code: 0, signal: null });
      expect(launched.output().match(/PostgreSQL is gone/g)).toHaveLength(1); // the kill -9 only
      expect(postmastersOf(dataDir)).toEqual([]);
      expect(await canConnect(embeddedUrl)).toBe(false);
    },
  );

  it(
    'a closed terminal (SIGHUP to its whole process group, its output gone): it stops everything, its embedded PostgreSQL too',
    { timeout: 180_000 },
    async () => {
      const [dataDir, pgPort] = [newDataDir(), await freeListenPort()];
      const launched = await launch(
        { DATA_DIR: dataDir, DATABASE_URL: '', EMBEDDED_POSTGRES_PORT: String(pgPort) },
        { detached: true },
      );
      const postgres = postmastersOf(dataDir);
      expect(postgres).toHaveLength(1);
      const group = [...childrenOf(launched.start.pid!), ...postgres];
      started.push(...group);
      const embeddedUrl = `postgresql://postgres:postgres@127.0.0.1:${pgPort}/postgres`;
      expect(await canConnect(embeddedUrl)).toBe(true);

      launched.start.stdout.destroy();
      launched.start.stderr.destroy();
      process.kill(-launched.start.pid!, 'SIGHUP');

      expect((await launched.exited).signal).toBeNull(); // it ran its shutdown instead of dying of the signal
      await eventually('the whole group to end', () => expect(group.filter(isAlive)).toEqual([]), {
        timeout: 20_000,
      });
      expect(await canConnect(embeddedUrl)).toBe(false);
    },
  );
});
