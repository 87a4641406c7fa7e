import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { formatIssues } from './shared/zod-issues.ts';

/** The project root: everything the service writes by default goes under `<root>/.data`. */
export const projectRoot = path.resolve(import.meta.dirname, '..');

/**
 * Every environment variable the service reads. Each `.describe()` is its documentation: `npm run docs:config`
 * writes them into docs/configuration.md (test/unit/config-docs.test.ts fails when it is stale), and .env.example
 * lists them all with their defaults (test/deploy/env-example.test.ts).
 */
export const envSchema = z.object({
  DATA_DIR: z
    .string()
    .default(path.join(projectRoot, '.data'))
    .describe(
      'Where the service keeps its local state: the embedded PostgreSQL, sandbox workspaces and the generated secrets.',
    ),
  DATABASE_URL: z
    .string()
    .url()
    .optional()
    .describe(
      'PostgreSQL to use; unset: the embedded PostgreSQL of `npm start` in `$DATA_DIR/postgres` (a development dependency); behind PgBouncer in transaction pooling, turn on its `max_prepared_statements` (1.21 or later), since the hot statements are named prepared statements.',
    ),
  EMBEDDED_POSTGRES_PORT: z.coerce
    .number()
    .int()
    .min(1)
    .max(65535)
    .default(54329)
    .describe('Port of the embedded PostgreSQL on 127.0.0.1, used when `DATABASE_URL` is unset.'),
  TEMPORAL_ADDRESS: z
    .string()
    .default('127.0.0.1:7233')
    .describe('Temporal frontend (host:port); `npm start` starts a dev server there unless one answers.'),
  TEMPORAL_NAMESPACE: z.string().default('default').describe('Temporal namespace of the runs.'),
  TEMPORAL_TLS: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      'TLS to the Temporal frontend (system CA roots unless `TEMPORAL_TLS_CA_PATH`); unset: on when any other `TEMPORAL_TLS_*` or `TEMPORAL_API_KEY` is set (docs/operations.md "Scaling out").',
    ),
  TEMPORAL_TLS_CA_PATH: z
    .string()
    .optional()
    .describe(
      "PEM file of the CA that signed the Temporal server's certificate (a private CA); unset: the system roots.",
    ),
  TEMPORAL_TLS_CERT_PATH: z
    .string()
    .optional()
    .describe('mTLS client certificate (PEM) for Temporal; needs `TEMPORAL_TLS_KEY_PATH`.'),
  TEMPORAL_TLS_KEY_PATH: z
    .string()
    .optional()
    .describe('Key (PEM) of the mTLS client certificate; needs `TEMPORAL_TLS_CERT_PATH`.'),
  TEMPORAL_TLS_SERVER_NAME: z
    .string()
    .optional()
    .describe(
      "Name checked in the Temporal server's certificate (SNI), when it differs from the host of `TEMPORAL_ADDRESS`.",
    ),
  TEMPORAL_API_KEY: z.string().optional().describe('Temporal Cloud API key; implies TLS.'),
  TEMPORAL_TASK_QUEUE: z
    .string()
    .default('agent-runs')
    .describe('Task queue the workers poll and the api starts runs on.'),
  TEMPORAL_UI_PORT: z.coerce
    .number()
    .int()
    .default(8233)
    .describe('Web UI port of the Temporal dev server `npm start` runs.'),
  TEMPORAL_UI_URL: z
    .string()
    .url()
    .optional()
    .describe('The Temporal Web UI the console links runs to; unset: `http://127.0.0.1:$TEMPORAL_UI_PORT`.'),
  API_HOST: z.string().default('127.0.0.1').describe('Address the api listens on.'),
  API_PORT: z.coerce.number().int().min(0).default(8000).describe('Port the api listens on (0: any free port).'),
  AUTH_URL: z.string().url().optional().describe('Public base URL of the auth API; unset: the api serves it itself.'),
  JWT_SECRET: z
    .string()
    .min(32)
    .optional()
    .describe(
      'HS256 signing secret of access tokens (32+ characters), the same in every api replica; required when `NODE_ENV=production`, otherwise unset means random, kept in `$DATA_DIR/jwt-secret`.',
    ),
  JWT_KID: z.string().default('k1').describe('Key id (`kid`) in the header of the tokens the api signs.'),
  SECRETS_KEY: z
    .string()
    .min(32)
    .optional()
    .describe(
      "Seals the orgs' secrets in the database (32+ characters), the same in every api and worker, and changing it makes stored secrets unreadable; required when `NODE_ENV=production`, otherwise unset means random, kept in `$DATA_DIR/secrets-key`.",
    ),
  JWT_ISSUER: z.string().default('agent-run-service').describe('`iss` claim of the tokens the api signs and accepts.'),
  JWT_AUDIENCE: z
    .string()
    .default('agent-run-service/api')
    .describe('`aud` claim of the tokens the api signs and accepts.'),
  MODEL_PROVIDER: z
    .enum(['offline', 'openai-compatible', 'openai', 'anthropic'])
    .optional()
    .describe(
      'Provider of the default model, for agents that name none; unset: `offline`, or `openai-compatible` when `MODEL_BASE_URL` is set.',
    ),
  MODEL_BASE_URL: z.string().url().optional().describe("Base URL of the default model's API."),
  MODEL_API_KEY: z.string().optional().describe("API key of the default model's provider."),
  MODEL_NAME: z.string().optional().describe('Name of the default model.'),
  CREDITS_PER_1K_TOKENS: z.coerce
    .number()
    .min(0)
    .default(1)
    .describe('Credits a run costs per 1,000 tokens (input and output).'),
  RATE_LIMIT_RUNS_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(30)
    .describe('Run starts per org and user in `RATE_LIMIT_WINDOW_SECONDS`, counted across all api replicas, then 429.'),
  RUN_STARTS_IN_FLIGHT_PER_ORG: z.coerce
    .number()
    .int()
    .positive()
    .default(4)
    .describe(
      "Run starts of one org an api process works on at once, in two turns (authenticating the request; storing the run and starting its workflow); the org's others wait their turn there, so one org's burst of requests does not fill the database pool ahead of another org's start.",
    ),
  RATE_LIMIT_TASKS_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(100)
    .describe('Task requests per org and user in `RATE_LIMIT_WINDOW_SECONDS`, across all api replicas, then 429.'),
  RATE_LIMIT_EVENTS_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(300)
    .describe(
      'Event history reads per org and user in `RATE_LIMIT_WINDOW_SECONDS`, across all api replicas, then 429.',
    ),
  RATE_LIMIT_MEMORIES_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .describe('Memory searches per org and user in `RATE_LIMIT_WINDOW_SECONDS`, across all api replicas, then 429.'),
  RATE_LIMIT_APPROVALS_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .describe('Approval requests per org and user in `RATE_LIMIT_WINDOW_SECONDS`, across all api replicas, then 429.'),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .describe('The fixed window the rate limits count in; 60 makes the `*_PER_MINUTE` limits per minute.'),
  WIDGET_RATE_LIMIT_PER_KEY: z.coerce
    .number()
    .int()
    .positive()
    .default(600)
    .describe('Widget gateway requests per widget key in `RATE_LIMIT_WINDOW_SECONDS` (docs/widget.md).'),
  WIDGET_RATE_LIMIT_PER_VISITOR: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .describe('Widget gateway requests per visitor in `RATE_LIMIT_WINDOW_SECONDS`.'),
  WIDGET_RATE_LIMIT_PER_ADDRESS: z.coerce
    .number()
    .int()
    .positive()
    .default(120)
    .describe('Widget gateway requests per client address (all its visitors and keys) in `RATE_LIMIT_WINDOW_SECONDS`.'),
  WIDGET_RUNS_PER_KEY: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .describe('Widget run starts per widget key (all visitors together) in `RATE_LIMIT_WINDOW_SECONDS`.'),
  WIDGET_MAX_STREAMS_PER_KEY: z.coerce
    .number()
    .int()
    .positive()
    .default(100)
    .describe('Open widget streams per widget key in one api process.'),
  WIDGET_KEY_CREDITS_PER_DAY: z.coerce
    .number()
    .int()
    .min(0)
    .default(1000)
    .describe(
      "Credits a widget key's visitors may use a day (UTC), unless the key sets its own `credits_per_day`; then 402.",
    ),
  WIDGET_VISITOR_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3650)
    .default(30)
    .describe('An idle widget visitor (no new session) is deleted with its tasks after this many days.'),
  FLOW_EVENTS_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(120)
    .describe(
      'Verified events one inbound flow takes in `RATE_LIMIT_WINDOW_SECONDS`, then 429, so a leaked secret or a replayed body cannot start runs without end.',
    ),
  WIDGET_TOKEN_LIFETIME_SECONDS: z.coerce
    .number()
    .int()
    .min(300)
    .max(86_400)
    .default(3600)
    .describe('Lifetime of a widget visitor token; widget.js renews it for the same visitor.'),
  EXCHANGE_FAILURES_PER_ADDRESS: z.coerce
    .number()
    .int()
    .positive()
    .default(20)
    .describe('Failed key exchanges per client address in `EXCHANGE_FAILURE_WINDOW_SECONDS`, then 429.'),
  EXCHANGE_FAILURES_PER_KEY: z.coerce
    .number()
    .int()
    .positive()
    .default(5)
    .describe('Failed key exchanges per key in `EXCHANGE_FAILURE_WINDOW_SECONDS`, then 429.'),
  EXCHANGE_FAILURE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(900)
    .describe('The window failed key exchanges and refused flow requests are counted in.'),
  FLOW_FAILURES_PER_ADDRESS: z.coerce
    .number()
    .int()
    .positive()
    .default(30)
    .describe(
      'Inbound flow requests refused (bad signature, unknown or disabled flow) per client address in `EXCHANGE_FAILURE_WINDOW_SECONDS`, then 429.',
    ),
  SSE_MAX_STREAMS_PER_USER: z.coerce
    .number()
    .int()
    .positive()
    .default(20)
    .describe('Concurrently open SSE streams per org and user in one api process, then 429 with `Retry-After`.'),
  SSE_MAX_STREAMS_PER_PROCESS: z.coerce
    .number()
    .int()
    .positive()
    .default(5000)
    .describe('Concurrently open SSE streams in one api process, then 429 with `Retry-After`.'),
  CORS_ORIGINS: z
    .string()
    .default('')
    .describe('Browser origins allowed to call the api (comma-separated, with credentials); empty: CORS closed.'),
  PUBLIC_BASE_URL: z
    .string()
    .url()
    .optional()
    .describe(
      "The URL clients reach the api at (e.g. `https://agents.example.com`): /mcp accepts requests whose Host or Origin is it or loopback, and names it in its OAuth metadata; tool servers' OAuth Connect redirects to `<it>/api/oauth/callback` (unset: `http://localhost:$API_PORT`).",
    ),
  TRUST_PROXY: z
    .string()
    .optional()
    .describe(
      'Express `trust proxy` (hops, `true`, or subnets), so client addresses are right behind a reverse proxy.',
    ),
  NODE_ENV: z
    .string()
    .optional()
    .describe('`production` makes `JWT_SECRET`, `SECRETS_KEY` and `METRICS_TOKEN` required.'),
  HEARTBEAT_INTERVAL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(15_000)
    .describe('Longest silence on a stream before a `HEARTBEAT` frame.'),
  SHUTDOWN_GRACE_SECONDS: z.coerce
    .number()
    .min(0)
    .max(3600)
    .default(20)
    .describe(
      "On SIGTERM, how long the api waits for requests in flight and the worker lets running activities finish; keep it below the orchestrator's kill timeout.",
    ),
  WORKFLOW_BUNDLE: z
    .string()
    .optional()
    .describe(
      'A prebuilt workflow bundle a worker run from the sources loads instead of bundling `src/workflows` as it starts (the tests set it); compiled and traced workers ignore it.',
    ),
  WORKER_DEPLOYMENT_NAME: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The Temporal Worker Deployment the workers join; unset: `TEMPORAL_TASK_QUEUE` (one deployment per queue). Runs stay pinned to the build they started on.',
    ),
  WORKER_BUILD_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, ".", "_" or "-", at most 64')
    .optional()
    .describe(
      "This worker's build id in that deployment; unset: a hash of the workflow bundle it loads, so changed workflow code is a new version.",
    ),
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce
    .number()
    .int()
    .refine((n) => n === 0 || n >= 2, '0 (no cache) or at least 2')
    .default(100)
    .describe(
      'Runs whose workflow state a worker keeps in memory (a few hundred KiB each); more open runs (waiting ones) are evicted and replayed from their history when they go on. 0: none kept, every step replays.',
    ),
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce
    .number()
    .int()
    .min(1)
    .default(4)
    .describe(
      "Workflow tasks a worker takes at once (at most `WORKER_MAX_CACHED_WORKFLOWS`). They run on one thread, so more only wait inside the worker, in arrival order; fewer leave the backlog in Temporal's task queue, where fairness between orgs and priorities order it.",
    ),
  WORKER_QUIET_GC_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(5_000)
    .describe(
      "How often each worker thread checks whether it has gone quiet (busy < 2% since the last check) with a heap grown 20% since its last such collection, and then collects with the GC that hands memory back. Without it a worker whose runs all wait keeps the heap its last burst grew. 0: off (V8's own schedule only).",
    ),
  WORKER_WORKFLOW_STACK_TRACES: z
    .enum(['true', 'false'])
    .default('false')
    .describe(
      "`true`: the SDK records where every promise of a workflow was made, so the Temporal UI's Stack Trace tab (the `__stack_trace` query) shows where a run waits. It costs about a sixth of the worker's CPU per run (a stack trace mapped through the source map per promise), so it is off unless you are chasing a stuck run; a run's status and events say what it waits for either way.",
    ),
  WEBHOOK_RETRY_INITIAL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(5_000)
    .describe('First retry of a failed webhook delivery after this long, doubling up to `WEBHOOK_RETRY_MAX_MS`.'),
  WEBHOOK_RETRY_MAX_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(3_600_000)
    .describe('Longest wait between two attempts of a webhook delivery.'),
  WEBHOOK_RETRY_WINDOW_HOURS: z.coerce
    .number()
    .positive()
    .max(168)
    .default(24)
    .describe('A webhook delivery is retried for this many hours, then marked failed (it can still be re-sent).'),
  WEBHOOK_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .max(300)
    .default(15)
    .describe('HTTP timeout of one webhook delivery attempt.'),
  OUTBOUND_PRIVATE_TARGETS: z
    .enum(['refuse', 'allow'])
    .default('refuse')
    .describe(
      '`refuse`: calls the worker makes for an org (webhooks, Slack replies) reach only public addresses, checked at connect time so DNS rebinding cannot slip past; `allow`: loopback and private ones too (`npm start` and the tests set it).',
    ),
  WEBHOOK_DISPATCH_INTERVAL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(1_000)
    .describe('How often each api starts the workflows of new webhook deliveries, flow events and Slack answers.'),
  SLACK_API_URL: z
    .string()
    .url()
    .default('https://slack.com/api')
    .describe("Slack's Web API, where messaging flows post their answers."),
  SANDBOX_DEFAULT_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .describe('Timeout of a sandbox command that asks for none.'),
  SANDBOX_MAX_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(600)
    .describe('Longest timeout a sandbox command may ask for.'),
  SANDBOX_MAX_OUTPUT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024)
    .describe('Output (stdout and stderr together) kept of one sandbox command; the rest is cut.'),
  SANDBOX_CPU_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(600)
    .describe('CPU time of each process of a sandbox command (`ulimit -t`).'),
  SANDBOX_MAX_PROCESSES: z.coerce
    .number()
    .int()
    .positive()
    .default(128)
    .describe('Processes a sandbox may run at once (`ulimit -u`, and `pids.max` where cgroups are available).'),
  SANDBOX_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(512 * 1024 * 1024)
    .describe('Largest file a sandbox command may write (`ulimit -f`).'),
  SANDBOX_MEMORY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(4 * 1024 * 1024 * 1024)
    .describe('Memory of a sandbox command (`ulimit -v`, and `memory.max` where cgroups are available).'),
  SANDBOX_TMP_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024 * 1024)
    .describe("Size of a sandbox command's private `/tmp`."),
  SANDBOX_CPUS: z.coerce
    .number()
    .positive()
    .max(1024)
    .default(1)
    .describe(
      'CPU bandwidth of one sandbox command and all its processes, in CPUs (cgroups; without them only `SANDBOX_CPU_SECONDS` per process).',
    ),
  SANDBOX_DISK_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(2 * 1024 * 1024 * 1024)
    .describe(
      'Size of the loop-mounted file system each workspace gets when the worker runs as root (per workspace, not per command); 0 turns it off.',
    ),
  SANDBOX_DISK_IMAGES: z
    .enum(['true', 'false'])
    .default('true')
    .describe('`false`: no disk images even as root, and the workspace quota is only checked before writes.'),
  SANDBOX_READ_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024)
    .describe('The most of a file `read_file` returns.'),
  SANDBOX_WRITE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024)
    .describe('The largest content `write_file` accepts.'),
  SANDBOX_SNAPSHOT_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024)
    .describe('A workspace whose compressed snapshot exceeds this is not snapshotted (the previous snapshots stay).'),
  SANDBOX_SNAPSHOTS_KEPT: z.coerce.number().int().positive().default(3).describe('Snapshots kept per workspace.'),
  SANDBOX_UID_BASE: z.coerce
    .number()
    .int()
    .min(1000)
    .default(200_000)
    .describe(
      'When the worker runs as root, each sandbox runs as its own unprivileged uid: this base + 65536 + its slot, allocated once per org and agent.',
    ),
  SANDBOX_HOST_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .optional()
    .describe(
      "This sandbox host's id, the home of its workspaces; unset: a random id kept in `$DATA_DIR/sandbox-host-id`, so processes sharing a `DATA_DIR` are one host.",
    ),
  SANDBOX_LEASE_SECONDS: z.coerce
    .number()
    .int()
    .min(2)
    .default(30)
    .describe(
      "How long a host holds a sandbox without renewing it (it renews every third of this); a dead host's sandboxes move to another after this.",
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino log level of the api and the worker.'),
  LOG_FORMAT: z
    .enum(['auto', 'json', 'pretty'])
    .default('auto')
    .describe(
      'Log lines of the api and the worker: `json` (one object a line), `pretty` (for a person), `auto`: pretty when stdout is a terminal (`npm start`), else JSON.',
    ),
  METRICS_TOKEN: z
    .string()
    .min(16)
    .optional()
    .describe(
      "When set (16+ characters), the api's `/metrics` needs `Authorization: Bearer <METRICS_TOKEN>`; unset, it is open, which `NODE_ENV=production` refuses.",
    ),
  WORKER_METRICS_HOST: z
    .string()
    .default('127.0.0.1')
    .describe("Address of the worker's Prometheus endpoint (`/metrics`: Temporal SDK metrics and ours)."),
  WORKER_METRICS_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(9464)
    .describe("Port of the worker's Prometheus endpoint; 0 turns it off."),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .optional()
    .describe(
      'OTLP/HTTP collector for traces, e.g. `http://otel-collector:4318`; tracing is off unless this or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (the other standard `OTEL_EXPORTER_OTLP_*` variables work as usual).',
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .string()
    .url()
    .optional()
    .describe('OTLP/HTTP endpoint for traces only, instead of `OTEL_EXPORTER_OTLP_ENDPOINT`.'),
  OTEL_SERVICE_NAME: z
    .string()
    .optional()
    .describe('Service name on spans; unset: `ars-api` or `ars-worker` by process.'),
});

export type Config = ReturnType<typeof loadConfig>;

/** A configuration that cannot run: its message lists every bad or missing value, one per line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads and validates the environment once. Every setting has an embedded default.
 * An empty value counts as unset (docker compose passes `${VAR:-}` through as "").
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(set);
  const problems = parsed.success ? [] : formatIssues(parsed.error.issues, { atRoot: '' }).map((line) => `  ${line}`);
  if (set.NODE_ENV === 'production' && !set.JWT_SECRET) {
    problems.push(
      '  JWT_SECRET: required when NODE_ENV=production (a random string of at least 32 characters, shared by every api replica)',
    );
  }
  if (set.NODE_ENV === 'production' && !set.SECRETS_KEY) {
    problems.push(
      '  SECRETS_KEY: required when NODE_ENV=production (a random string of at least 32 characters, shared by every api and worker)',
    );
  }
  // The api listens on every interface in a deployment (docker-compose.yml publishes it): an open /metrics would be public.
  if (set.NODE_ENV === 'production' && !set.METRICS_TOKEN) {
    problems.push(
      "  METRICS_TOKEN: required when NODE_ENV=production (a random string of at least 16 characters; the api's /metrics then answers only Authorization: Bearer <METRICS_TOKEN>)",
    );
  }
  if (parsed.success) problems.push(...temporalSecurityProblems(parsed.data).map((p) => `  ${p}`));
  if (!parsed.success || problems.length) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  const e = parsed.data;
  return {
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    embeddedPostgresPort: e.EMBEDDED_POSTGRES_PORT,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      uiPort: e.TEMPORAL_UI_PORT,
      uiUrl: (e.TEMPORAL_UI_URL ?? `http://127.0.0.1:${e.TEMPORAL_UI_PORT}`).replace(/\/$/, ''),
      security: temporalSecurity(e),
    },
    api: { host: e.API_HOST, port: e.API_PORT, authUrl: e.AUTH_URL },
    jwt: {
      secret: e.JWT_SECRET ?? persistentSecret(e.DATA_DIR, 'jwt-secret'),
      kid: e.JWT_KID,
      issuer: e.JWT_ISSUER,
      audience: e.JWT_AUDIENCE,
    },
    secrets: { key: e.SECRETS_KEY ?? persistentSecret(e.DATA_DIR, 'secrets-key') },
    model: {
      provider: e.MODEL_PROVIDER ?? (e.MODEL_BASE_URL ? 'openai-compatible' : 'offline'),
      baseUrl: e.MODEL_BASE_URL,
      apiKey: e.MODEL_API_KEY,
      name: e.MODEL_NAME,
    },
    creditsPer1kTokens: e.CREDITS_PER_1K_TOKENS,
    runStartsInFlightPerOrg: e.RUN_STARTS_IN_FLIGHT_PER_ORG,
    rateLimits: {
      runs: e.RATE_LIMIT_RUNS_PER_MINUTE,
      tasks: e.RATE_LIMIT_TASKS_PER_MINUTE,
      events: e.RATE_LIMIT_EVENTS_PER_MINUTE,
      memories: e.RATE_LIMIT_MEMORIES_PER_MINUTE,
      approvals: e.RATE_LIMIT_APPROVALS_PER_MINUTE,
      windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
      widgetKey: e.WIDGET_RATE_LIMIT_PER_KEY,
      widgetVisitor: e.WIDGET_RATE_LIMIT_PER_VISITOR,
      widgetAddress: e.WIDGET_RATE_LIMIT_PER_ADDRESS,
      widgetKeyRuns: e.WIDGET_RUNS_PER_KEY,
      flowEvents: e.FLOW_EVENTS_PER_MINUTE,
      exchangeFailuresPerAddress: e.EXCHANGE_FAILURES_PER_ADDRESS,
      exchangeFailuresPerKey: e.EXCHANGE_FAILURES_PER_KEY,
      exchangeFailureWindowSeconds: e.EXCHANGE_FAILURE_WINDOW_SECONDS,
      flowFailuresPerAddress: e.FLOW_FAILURES_PER_ADDRESS,
    },
    widget: {
      tokenLifetimeSeconds: e.WIDGET_TOKEN_LIFETIME_SECONDS,
      keyCreditsPerDay: e.WIDGET_KEY_CREDITS_PER_DAY,
      visitorDays: e.WIDGET_VISITOR_DAYS,
    },
    streams: {
      perUser: e.SSE_MAX_STREAMS_PER_USER,
      perProcess: e.SSE_MAX_STREAMS_PER_PROCESS,
      perWidgetKey: e.WIDGET_MAX_STREAMS_PER_KEY,
    },
    http: {
      corsOrigins: e.CORS_ORIGINS.split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      trustProxy: e.TRUST_PROXY,
      publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/$/, ''),
    },
    sandbox: {
      defaultTimeoutSeconds: e.SANDBOX_DEFAULT_TIMEOUT_SECONDS,
      maxTimeoutSeconds: e.SANDBOX_MAX_TIMEOUT_SECONDS,
      maxOutputBytes: e.SANDBOX_MAX_OUTPUT_BYTES,
      cpuSeconds: e.SANDBOX_CPU_SECONDS,
      maxProcesses: e.SANDBOX_MAX_PROCESSES,
      maxFileBytes: e.SANDBOX_MAX_FILE_BYTES,
      memoryBytes: e.SANDBOX_MEMORY_BYTES,
      tmpBytes: e.SANDBOX_TMP_BYTES,
      cpus: e.SANDBOX_CPUS,
      diskBytes: e.SANDBOX_DISK_BYTES,
      diskImages: e.SANDBOX_DISK_IMAGES === 'true',
      readMaxBytes: e.SANDBOX_READ_MAX_BYTES,
      writeMaxBytes: e.SANDBOX_WRITE_MAX_BYTES,
      snapshotMaxBytes: e.SANDBOX_SNAPSHOT_MAX_BYTES,
      snapshotsKept: e.SANDBOX_SNAPSHOTS_KEPT,
      uidBase: e.SANDBOX_UID_BASE,
      hostId: e.SANDBOX_HOST_ID,
      leaseSeconds: e.SANDBOX_LEASE_SECONDS,
    },
    heartbeatIntervalMs: e.HEARTBEAT_INTERVAL_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
    workflowBundle: e.WORKFLOW_BUNDLE,
    workerVersion: { deploymentName: e.WORKER_DEPLOYMENT_NAME ?? e.TEMPORAL_TASK_QUEUE, buildId: e.WORKER_BUILD_ID },
    maxCachedWorkflows: e.WORKER_MAX_CACHED_WORKFLOWS,
    maxConcurrentWorkflowTasks: e.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
    webhooks: {
      retryInitialMs: e.WEBHOOK_RETRY_INITIAL_MS,
      retryMaxMs: e.WEBHOOK_RETRY_MAX_MS,
      retryWindowMs: e.WEBHOOK_RETRY_WINDOW_HOURS * 3_600_000,
      timeoutMs: e.WEBHOOK_TIMEOUT_SECONDS * 1000,
      dispatchIntervalMs: e.WEBHOOK_DISPATCH_INTERVAL_MS,
    },
    outbound: { privateTargets: e.OUTBOUND_PRIVATE_TARGETS },
    flows: { slackApiUrl: e.SLACK_API_URL.replace(/\/$/, '') },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    observability: {
      metricsToken: e.METRICS_TOKEN,
      workerMetrics: { host: e.WORKER_METRICS_HOST, port: e.WORKER_METRICS_PORT },
      /** Tracing is on when an OTLP endpoint is configured; the exporter reads the standard OTEL_* variables itself. */
      tracing:
        e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
          ? { serviceName: e.OTEL_SERVICE_NAME }
          : undefined,
    },
  } as const;
}

type Env = z.infer<typeof envSchema>;

/** TLS and API key settings of the Temporal connection; connectionOptions (src/connections/temporal.ts) turns them into SDK options. */
export interface TemporalSecurity {
  tls: boolean;
  caPath?: string;
  certPath?: string;
  keyPath?: string;
  serverName?: string;
  apiKey?: string;
}

function temporalSecurity(e: Env): TemporalSecurity {
  const certificates = Boolean(e.TEMPORAL_TLS_CA_PATH || e.TEMPORAL_TLS_CERT_PATH || e.TEMPORAL_TLS_SERVER_NAME);
  return {
    // An API key travels only over TLS (Temporal Cloud requires it); certificates imply TLS too.
    tls: e.TEMPORAL_TLS === 'true' || (e.TEMPORAL_TLS !== 'false' && (certificates || Boolean(e.TEMPORAL_API_KEY))),
    caPath: e.TEMPORAL_TLS_CA_PATH,
    certPath: e.TEMPORAL_TLS_CERT_PATH,
    keyPath: e.TEMPORAL_TLS_KEY_PATH,
    serverName: e.TEMPORAL_TLS_SERVER_NAME,
    apiKey: e.TEMPORAL_API_KEY,
  };
}

/** Settings that cannot work together, found at boot rather than at the first connection. */
function temporalSecurityProblems(e: Env): string[] {
  const problems: string[] = [];
  if (e.TEMPORAL_TLS_CERT_PATH && !e.TEMPORAL_TLS_KEY_PATH)
    problems.push(
      'TEMPORAL_TLS_KEY_PATH: required with TEMPORAL_TLS_CERT_PATH (mTLS needs the client certificate and its key)',
    );
  if (e.TEMPORAL_TLS_KEY_PATH && !e.TEMPORAL_TLS_CERT_PATH)
    problems.push(
      'TEMPORAL_TLS_CERT_PATH: required with TEMPORAL_TLS_KEY_PATH (mTLS needs the client certificate and its key)',
    );
  const anyTls =
    e.TEMPORAL_TLS_CA_PATH ||
    e.TEMPORAL_TLS_CERT_PATH ||
    e.TEMPORAL_TLS_KEY_PATH ||
    e.TEMPORAL_TLS_SERVER_NAME ||
    e.TEMPORAL_API_KEY;
  if (e.TEMPORAL_TLS === 'false' && anyTls)
    problems.push('TEMPORAL_TLS: is false, but TLS certificates or TEMPORAL_API_KEY are set (they need TLS)');
  for (const [name, file] of [
    ['TEMPORAL_TLS_CA_PATH', e.TEMPORAL_TLS_CA_PATH],
    ['TEMPORAL_TLS_CERT_PATH', e.TEMPORAL_TLS_CERT_PATH],
    ['TEMPORAL_TLS_KEY_PATH', e.TEMPORAL_TLS_KEY_PATH],
  ] as const) {
    if (file && !existsSync(file)) problems.push(`${name}: no file at ${file}`);
  }
  return problems;
}

/** loadConfig for a process's entry point: a bad configuration prints its message (no stack) and exits 1. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}

/**
 * Without JWT_SECRET or SECRETS_KEY, a random one is kept in the data directory so a
 * single-machine install keeps its tokens and secrets across restarts. Replicas must share the variables.
 */
function persistentSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (err) {
    // The api and the worker start together: the first to write it wins, the other reads it.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw err;
  }
}
