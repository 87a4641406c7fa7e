import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { projectRoot } from '../../src/config.ts';
import { createDb } from '../../src/db/client.ts';
import { createDatabaseIfMissing, withDatabase } from '../../src/embedded/postgres.ts';
import { stopChild } from '../../src/processes/lifecycle.ts';
import { commandOf, environmentOf, healthcheckOf, readCompose, startOrder } from '../support/compose.ts';
import { readSse } from '../support/http.ts';
import { eventually } from '../support/eventually.ts';
import { createTenant } from '../support/tenant.ts';

/**
 * The production path without Docker (we cannot run it here): `npm run build`, then every
 * command docker-compose.yml runs, natively, in compose's start order, against a fresh
 * database; after each long-running service starts, its healthcheck command runs until it
 * passes. Third-party images are stood in for: PostgreSQL by the system (test) PostgreSQL,
 * the Temporal server and its schema step by the test's Temporal dev server, the Web UI by
 * nothing. The search-attributes step (admin-tools image) runs natively with the Temporal CLI
 * in .tools. Compose's host names and ports become local ones (localize below).
 */
const compose = readCompose(path.join(projectRoot, 'docker-compose.yml'));
const STOOD_IN: Record<string, string> = {
  postgres: 'a fresh database on the test PostgreSQL server',
  'temporal-schema': 'the test Temporal dev server (it has its schema)',
  temporal: 'the test Temporal dev server',
  'temporal-ui': 'nothing (no UI in tests)',
  // Profile "observability", not started by a plain `up`: third-party images. What they read is checked
  // elsewhere: the scrape targets and dashboard mounts in compose-file.test.ts, the dashboard's series
  // and both /metrics endpoints in test/e2e/observability.test.ts.
  prometheus: 'nothing (profile observability)',
  grafana: 'nothing (profile observability)',
  jaeger: 'nothing (profile observability)',
};
const PATH = [
  path.join(projectRoot, 'node_modules', '.bin'),
  path.join(projectRoot, '.tools', 'temporal', 'bin'),
  process.env.PATH,
].join(path.delimiter);
const composeVars = {
  JWT_SECRET: randomBytes(32).toString('hex'),
  SECRETS_KEY: randomBytes(32).toString('hex'),
  METRICS_TOKEN: randomBytes(24).toString('hex'),
  POSTGRES_PASSWORD: 'stood-in',
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Exit {
  code: number | null;
  output: string;
}

function run(argv: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

beforeAll(() => {
  const build = spawnSync('npm', ['run', '--silent', 'build'], {
    cwd: projectRoot,
    encoding: 'utf8',
    env: { ...process.env, PATH },
  });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
}, 180_000);

describe('boot validation', () => {
  it('node dist/main/api.js with two bad values exits non-zero naming both, without a stack trace', async () => {
    const result = await run(
      ['node', 'dist/main/api.js'],
      { PATH, API_PORT: 'eighty', MODEL_PROVIDER: 'gpt', DATA_DIR: tmpdir() },
      20_000,
    );
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/Invalid configuration:/);
    expect(result.output).toMatch(/API_PORT: /);
    expect(result.output).toMatch(/MODEL_PROVIDER: /);
    expect(result.output).not.toMatch(/^\s+at /m);
  });
});

describe('docker-compose.yml, natively', () => {
  const children: { name: string; child: ChildProcess; output: () => string }[] = [];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ars-compose-'));
  const dbName = `ars_test_compose_${randomBytes(4).toString('hex')}`;
  const databaseUrl = withDatabase(inject('databaseUrl'), dbName);
  const adminUrl = withDatabase(inject('databaseUrl'), 'postgres');
  const temporalAddress = inject('temporalAddress');
  let apiPort = 0;
  let metricsPort = 0;

  /** Compose's addresses → this machine's. */
  const localizeArg = (arg: string) =>
    arg
      .replaceAll('127.0.0.1:8000', `127.0.0.1:${apiPort}`)
      .replaceAll('127.0.0.1:9464', `127.0.0.1:${metricsPort}`)
      .replaceAll('temporal:7233', temporalAddress);
  const localEnv = (env: Record<string, string>): Record<string, string> => {
    const overrides: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      DATA_DIR: dataDir,
      API_HOST: '127.0.0.1',
      API_PORT: String(apiPort),
      WORKER_METRICS_HOST: '127.0.0.1',
      WORKER_METRICS_PORT: String(metricsPort),
    };
    const local = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, overrides[k] ?? localizeArg(v)]));
    // Our own task queue on the shared dev server, so no other test's worker takes these runs.
    return { ...local, PATH, TEMPORAL_TASK_QUEUE: `compose-${dbName}` };
  };

  beforeAll(async () => {
    apiPort = await freePort();
    metricsPort = await freePort();
    await createDatabaseIfMissing(adminUrl, dbName);
  });

  afterAll(async () => {
    for (const { child } of children.reverse()) await stopChild(child);
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(dbName)} WITH (FORCE)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Runs the healthcheck command until it exits 0; fails early if the service exits. */
  async function waitHealthy(
    name: string,
    argv: string[],
    env: Record<string, string>,
    service: ChildProcess,
    output: () => string,
  ) {
    const exited = await eventually(
      `${name}'s healthcheck (${argv.join(' ')}) to pass`,
      async () => {
        if (service.exitCode !== null) return true;
        const last = await run(argv, env, 10_000);
        if (last.code !== 0) throw new Error(`${last.output}\n${output()}`);
        return false;
      },
      { timeout: 60_000, interval: 250 },
    );
    if (exited) throw new Error(`${name} exited (${service.exitCode}) before it was healthy:\n${output()}`);
  }

  it('every service command runs in start order, and every healthcheck passes', async () => {
    const order = startOrder(compose);
    const ranOrStoodIn: string[] = [];
    for (const name of order) {
      const service = compose.services[name]!;
      if (STOOD_IN[name]) {
        ranOrStoodIn.push(name);
        continue;
      }
      const env = localEnv(environmentOf(service, composeVars));
      const argv = commandOf(service, composeVars).map(localizeArg);
      expect(argv.length, `${name} has a command`).toBeGreaterThan(0);
      if (service.restart === 'no') {
        const result = await run(argv, env);
        expect(result.code, `${name}: ${argv.join(' ')}\n${result.output}`).toBe(0);
      } else {
        const child = spawn(argv[0]!, argv.slice(1), { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
        const output = () => out.slice(-4000);
        children.push({ name, child, output });
        const check = healthcheckOf(service, composeVars)!.map(localizeArg);
        await waitHealthy(name, check, env, child, output);
      }
      ranOrStoodIn.push(name);
    }
    expect(ranOrStoodIn).toEqual(order);
  }, 150_000);

  it('a run goes through the api and the worker it started', async () => {
    const db = createDb(databaseUrl, 2);
    try {
      const tenant = await createTenant({}, db);
      const api = `http://127.0.0.1:${apiPort}`;
      const exchanged = await fetch(`${api}/api/v1/auth/exchange/agent-token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ api_key: tenant.keys.owner }),
      });
      expect(exchanged.status).toBe(200);
      const { access_token: token } = (await exchanged.json()) as { access_token: string };
      const res = await fetch(`${api}/api/run`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'X-Agent-Id': tenant.agentId, 'Content-Type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'Hello from compose' }] }),
      });
      expect(res.status).toBe(200);
      const frames = await readSse(res);
      expect(frames.at(-1)?.data.type).toBe('RUN_FINISHED');
      // The interactive reference's script comes from dist, not from a dev-only package.
      const script = await fetch(`${api}/docs/scalar.js`);
      expect(script.status).toBe(200);
      expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
      // So does the web console, built by `npm run build`.
      const consolePage = await fetch(`${api}/console/`);
      expect(consolePage.status).toBe(200);
      expect(await consolePage.text()).toContain('/console/main.js');
      expect((await fetch(`${api}/console/main.js`)).status).toBe(200);
      // The api is published on every interface: its /metrics answers only the bearer of METRICS_TOKEN.
      expect((await fetch(`${api}/metrics`)).status).toBe(401);
      expect(
        (await fetch(`${api}/metrics`, { headers: { Authorization: `Bearer ${composeVars.METRICS_TOKEN}` } })).status,
      ).toBe(200);
    } finally {
      await db.$disconnect();
    }
  });

  it('the one-shot init services succeed again on the next `up`', async () => {
    for (const name of startOrder(compose).filter((n) => compose.services[n]!.restart === 'no' && !STOOD_IN[n])) {
      const service = compose.services[name]!;
      const result = await run(
        commandOf(service, composeVars).map(localizeArg),
        localEnv(environmentOf(service, composeVars)),
      );
      expect(result.code, `${name}\n${result.output}`).toBe(0);
    }
  });
});
