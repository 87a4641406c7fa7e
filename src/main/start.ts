import { spawn } from 'node:child_process';
import path from 'node:path';
import { loadConfigOrExit } from '../config.ts';
import { serviceEnv, tsxServiceArgs } from '../processes/service-args.ts';
import { createDb } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { createDatabaseIfMissing, ensureDatabase, withDatabase } from '../embedded/postgres.ts';
import { waitUntil } from '../processes/lifecycle.ts';
import { ensureTemporalBinary, startDevServer, temporalReachable } from '../embedded/temporal-dev-server.ts';
import { temporalConnectionOptions } from '../connections/temporal.ts';
import { describeDefaultModel } from '../activities/models/describe.ts';
import { unmountDisksBelow } from '../sandbox/workspace-disk.ts';
import { ensureDemoTenant } from './demo-tenant.ts';
import { STOP_SIGNALS, Supervised, type SupervisorEvents } from './supervised.ts';

/**
 * The start command: everything on embedded defaults. Temporal dev server
 * (SQLite in the data directory, Web UI on), PostgreSQL (DATABASE_URL or
 * embedded), migrations, a demo tenant, then the api and worker processes, which it restarts
 * when they exit on their own (kill -9 one to watch a run carry on: README "Two commands").
 */
const config = loadConfigOrExit();
const log = (m: string) => console.log(`start: ${m}`);
const children: Supervised[] = [];
let stopping = false;
const supervision: SupervisorEvents = {
  log,
  stopRequested: () => void shutdown(0),
  gaveUp: (why) => {
    log(`${why}; stopping`);
    void shutdown(1);
  },
};
// With its terminal closed, writing the shutdown's lines fails (EIO, EPIPE): that must not stop the shutdown.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

const database = await ensureDatabase(config, log);
const stopWatchingDatabase = database.keepRunning?.();
if (config.databaseUrl) await createNamedDatabase(config.databaseUrl);
log(`applying migrations`);
await migrate(database.url);

let temporalUi: string | undefined;
if (await temporalReachable(temporalConnectionOptions(config.temporal))) {
  log(`using the Temporal server already at ${config.temporal.address}`);
} else {
  const binary = ensureTemporalBinary(log);
  const port = Number(config.temporal.address.split(':').pop());
  const dbFile = path.join(config.dataDir, 'temporal', 'temporal.db');
  children.push(
    new Supervised(
      'Temporal dev server',
      () =>
        startDevServer({ binary, port, uiPort: config.temporal.uiPort, dbFile, namespace: config.temporal.namespace }),
      supervision,
    ),
  );
  await waitUntil(() => temporalReachable(temporalConnectionOptions(config.temporal)), 60_000, 'Temporal dev server');
  temporalUi = `http://127.0.0.1:${config.temporal.uiPort}`;
}

const db = createDb(database.url, 2);
const demo = await ensureDemoTenant(db, config.dataDir);
await db.$disconnect();

// The development stack on this machine: webhook receivers on localhost are allowed unless said otherwise.
const childEnv = {
  OUTBOUND_PRIVATE_TARGETS: 'allow',
  ...process.env,
  DATABASE_URL: database.url,
  TEMPORAL_ADDRESS: config.temporal.address,
  DATA_DIR: config.dataDir,
};
const services = (['worker', 'api'] as const).map(
  (name) =>
    new Supervised(
      name,
      () =>
        spawn(process.execPath, tsxServiceArgs(name), {
          env: { ...childEnv, ...serviceEnv(name) },
          stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
        }),
      supervision,
    ),
);
children.push(...services);
const apiUrl = `http://${config.api.host}:${config.api.port}`;
const { host: metricsHost, port: metricsPort } = config.observability.workerMetrics;
const workerMetrics = metricsPort > 0 ? `, http://${metricsHost}:${metricsPort}/metrics (worker)` : '';
await waitUntil(async () => (await fetch(`${apiUrl}/healthz`).catch(() => undefined))?.ok === true, 120_000, 'api');
// After the worker's start-up lines, so they do not scroll the banner away.
await waitUntil(() => Promise.resolve(services[0]!.ready), 120_000, 'worker');

console.log(`
Agent Run Service is up.
  API:          ${apiUrl}
  Auth API:     ${config.api.authUrl ?? apiUrl}
  API docs:     ${apiUrl}/docs
  Metrics:      ${apiUrl}/metrics (api)${workerMetrics}
  Temporal UI:  ${temporalUi ?? '(external Temporal server; use its UI)'}  (namespace ${config.temporal.namespace})
  Model:        ${describeDefaultModel(config)}
  Demo org:     ${demo.orgId}
  Demo agent:   ${demo.agentId}
  Demo API key: ${demo.apiKey}

Try it:
  npx agent-run login --url ${apiUrl} --key ${demo.apiKey} --agent ${demo.agentId}
  npx agent-run run "Hello!"
  Console: ${apiUrl}/console/  (sign in with the demo API key)
  or curl:
  TOKEN=$(curl -s -X POST ${config.api.authUrl ?? apiUrl}/api/v1/auth/exchange/agent-token -H 'Content-Type: application/json' \\
    -d '{"api_key":"${demo.apiKey}"}' | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')
  curl -N ${apiUrl}/api/run -H "Authorization: Bearer $TOKEN" -H 'X-Agent-Id: ${demo.agentId}' \\
    -H 'Content-Type: application/json' -d '{"messages":[{"role":"user","content":"Hello!"}]}'

Press Ctrl+C to stop.`);

// Not `once`: Ctrl-C reaches this process up to three times (the terminal's process group, then
// npm and tsx forwarding it); a second signal with no listener would kill it mid-shutdown and leave
// the Temporal server and PostgreSQL it started running. shutdown() acts on the first only.
for (const signal of STOP_SIGNALS) process.on(signal, () => void shutdown(0));

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  stopWatchingDatabase?.(); // Ctrl-C reaches the embedded PostgreSQL too: its exit is no crash
  for (const child of children.reverse()) await child.stop();
  // The sandboxes' workspace disks its worker loop-mounted stay mounted after the worker is gone (and
  // `rm -rf` of the data directory would fail with EBUSY): the next start mounts them again.
  unmountDisksBelow(config.dataDir);
  await database.stop?.();
  process.exit(code);
}

/**
 * The start command is for a first try: a DATABASE_URL naming a database that does not exist yet
 * gets it created (through the server's `postgres` database). Without the right to, the migration
 * step that follows says what is wrong.
 */
async function createNamedDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name) return;
  await createDatabaseIfMissing(withDatabase(url, 'postgres'), name).then(
    () => undefined,
    (err: unknown) => log(`could not check or create database ${name}: ${String(err)}`),
  );
}
