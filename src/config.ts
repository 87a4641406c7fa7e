import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { formatIssues } from './shared/zod-issues.ts';

/** The project root: everything the service writes by default goes under `<root>/.data`. */
export const projectRoot = path.resolve(import.meta.dirname, '..');

/** Every environment variable the service reads (.env.example documents each, test/deploy/env-example.test.ts checks). */
export const envSchema = z.object({
  DATA_DIR: z.string().default(path.join(projectRoot, '.data')),
  DATABASE_URL: z.string().url().optional(),
  /** The embedded PostgreSQL's port on 127.0.0.1, when DATABASE_URL is unset. */
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  /** A remote Temporal (self-hosted with TLS, Temporal Cloud): see docs/operations.md "Scaling out". */
  TEMPORAL_TLS: z.enum(['true', 'false']).optional(),
  TEMPORAL_TLS_CA_PATH: z.string().optional(),
  TEMPORAL_TLS_CERT_PATH: z.string().optional(),
  TEMPORAL_TLS_KEY_PATH: z.string().optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().optional(),
  TEMPORAL_API_KEY: z.string().optional(),
  TEMPORAL_TASK_QUEUE: z.string().default('agent-runs'),
  TEMPORAL_UI_PORT: z.coerce.number().int().default(8233),
  /** The Temporal Web UI the console links runs to; default the dev server's UI on 127.0.0.1:TEMPORAL_UI_PORT. */
  TEMPORAL_UI_URL: z.string().url().optional(),
  API_HOST: z.string().default('127.0.0.1'),
  API_PORT: z.coerce.number().int().min(0).default(8000),
  /** Public base URL of the auth API; the agent API serves it too unless set. */
  AUTH_URL: z.string().url().optional(),
  JWT_SECRET: z.string().min(32).optional(),
  JWT_KID: z.string().default('k1'),
  /** Seals the orgs' secrets in the database (src/auth/secret-box.ts); every api and worker shares it. Kept in DATA_DIR when unset. */
  SECRETS_KEY: z.string().min(32).optional(),
  JWT_ISSUER: z.string().default('agent-run-service'),
  JWT_AUDIENCE: z.string().default('agent-run-service/api'),
  MODEL_PROVIDER: z.enum(['offline', 'openai-compatible', 'openai', 'anthropic']).optional(),
  MODEL_BASE_URL: z.string().url().optional(),
  MODEL_API_KEY: z.string().optional(),
  MODEL_NAME: z.string().optional(),
  CREDITS_PER_1K_TOKENS: z.coerce.number().min(0).default(1),
  /** Rate limits per org and user, counted in every api replica together (shared table `rate_limits`). */
  RATE_LIMIT_RUNS_PER_MINUTE: z.coerce.number().int().positive().default(30),
  RATE_LIMIT_TASKS_PER_MINUTE: z.coerce.number().int().positive().default(100),
  RATE_LIMIT_EVENTS_PER_MINUTE: z.coerce.number().int().positive().default(300),
  RATE_LIMIT_MEMORIES_PER_MINUTE: z.coerce.number().int().positive().default(60),
  RATE_LIMIT_APPROVALS_PER_MINUTE: z.coerce.number().int().positive().default(60),
  /** The fixed window the limits above count in; 60 makes them "per minute". */
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(60),
  /** The chat widget gateway (docs/widget.md): requests per widget key and per visitor in RATE_LIMIT_WINDOW_SECONDS. */
  WIDGET_RATE_LIMIT_PER_KEY: z.coerce.number().int().positive().default(600),
  WIDGET_RATE_LIMIT_PER_VISITOR: z.coerce.number().int().positive().default(60),
  /** Widget requests per client address (all its visitors and keys), and runs per widget key, in RATE_LIMIT_WINDOW_SECONDS. */
  WIDGET_RATE_LIMIT_PER_ADDRESS: z.coerce.number().int().positive().default(120),
  WIDGET_RUNS_PER_KEY: z.coerce.number().int().positive().default(60),
  /** Open widget streams per widget key in one api process. */
  WIDGET_MAX_STREAMS_PER_KEY: z.coerce.number().int().positive().default(100),
  /** Credits a widget key's visitors may use a day (UTC), unless the key sets its own `credits_per_day`. */
  WIDGET_KEY_CREDITS_PER_DAY: z.coerce.number().int().min(0).default(1000),
  /** An idle widget visitor (no new session) is deleted with its tasks after this many days. */
  WIDGET_VISITOR_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Verified events one inbound flow takes in RATE_LIMIT_WINDOW_SECONDS (a leaked secret or a replayed body cannot start runs without end). */
  FLOW_EVENTS_PER_MINUTE: z.coerce.number().int().positive().default(120),
  /** Lifetime of a widget visitor token; widget.js renews it for the same visitor. */
  WIDGET_TOKEN_LIFETIME_SECONDS: z.coerce.number().int().min(300).max(86_400).default(3600),
  /** Failed key exchanges allowed per client address and per key in EXCHANGE_FAILURE_WINDOW_SECONDS, then 429. */
  EXCHANGE_FAILURES_PER_ADDRESS: z.coerce.number().int().positive().default(20),
  EXCHANGE_FAILURES_PER_KEY: z.coerce.number().int().positive().default(5),
  EXCHANGE_FAILURE_WINDOW_SECONDS: z.coerce.number().int().positive().default(900),
  /** Inbound flow requests refused (bad signature, unknown flow) allowed per client address in EXCHANGE_FAILURE_WINDOW_SECONDS, then 429. */
  FLOW_FAILURES_PER_ADDRESS: z.coerce.number().int().positive().default(30),
  /** Concurrently open SSE streams, per org and user and per api process (429 + Retry-After beyond). */
  SSE_MAX_STREAMS_PER_USER: z.coerce.number().int().positive().default(20),
  SSE_MAX_STREAMS_PER_PROCESS: z.coerce.number().int().positive().default(5000),
  /** Origins allowed to call the api from a browser (comma-separated); none by default: CORS closed. */
  CORS_ORIGINS: z.string().default(''),
  /** Express "trust proxy": set it (e.g. 1, or a subnet) behind a reverse proxy so client addresses are right. */
  TRUST_PROXY: z.string().optional(),
  NODE_ENV: z.string().optional(),
  HEARTBEAT_INTERVAL_MS: z.coerce.number().int().positive().default(15_000),
  /**
   * On SIGTERM: how long the api waits for requests in flight (its streams are told to reconnect at once),
   * and how long the worker lets running activities finish before cancelling them for a retry elsewhere.
   * Keep it below the orchestrator's kill timeout (compose stop_grace_period, Kubernetes terminationGracePeriodSeconds).
   */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(20),
  /**
   * A worker running from the sources (tsx) loads this prebuilt workflow bundle instead of bundling
   * src/workflows as it starts (seconds of CPU each start; the tests bundle once for all their
   * workers). Ignored by a compiled worker, which loads dist's, and when tracing is on.
   */
  WORKFLOW_BUNDLE: z.string().optional(),
  /** Outbound webhooks: first retry after this long, doubling up to the maximum, for the window. */
  WEBHOOK_RETRY_INITIAL_MS: z.coerce.number().int().positive().default(5_000),
  WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().positive().default(3_600_000),
  WEBHOOK_RETRY_WINDOW_HOURS: z.coerce.number().positive().max(168).default(24),
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().int().positive().max(300).default(15),
  /**
   * Whether calls the worker makes for an org (outbound webhooks, Slack replies) may reach loopback,
   * private, link-local and other non-public addresses. Orgs choose those targets, so by default they
   * may not (no reaching the service's own network); `npm start` and the tests allow them, for receivers on this machine.
   */
  OUTBOUND_PRIVATE_TARGETS: z.enum(['refuse', 'allow']).default('refuse'),
  /** How often each api looks for new deliveries to start (their workflows are started once). */
  WEBHOOK_DISPATCH_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
  /** Slack's Web API, where messaging flows post answers (a local fake in tests). */
  SLACK_API_URL: z.string().url().default('https://slack.com/api'),
  /** Sandbox limits (docs/api.md "The agent runtime"): per command unless noted. */
  SANDBOX_DEFAULT_TIMEOUT_SECONDS: z.coerce.number().int().positive().default(60),
  SANDBOX_MAX_TIMEOUT_SECONDS: z.coerce.number().int().positive().default(600),
  SANDBOX_MAX_OUTPUT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  SANDBOX_CPU_SECONDS: z.coerce.number().int().positive().default(600),
  SANDBOX_MAX_PROCESSES: z.coerce.number().int().positive().default(128),
  SANDBOX_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(512 * 1024 * 1024),
  SANDBOX_MEMORY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(4 * 1024 * 1024 * 1024),
  SANDBOX_TMP_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024 * 1024),
  /** CPU bandwidth of one command and all its processes, in CPUs (cgroups; where the host has none, only SANDBOX_CPU_SECONDS per process). */
  SANDBOX_CPUS: z.coerce.number().positive().max(1024).default(1),
  /** Per workspace (not per command): its own loop-mounted file system of this size, when the worker runs as root; 0 turns it off. */
  SANDBOX_DISK_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(2 * 1024 * 1024 * 1024),
  /** false: no disk images even as root; the quota is then only checked before writes (src/sandbox/disk-usage.ts). */
  SANDBOX_DISK_IMAGES: z.enum(['true', 'false']).default('true'),
  /** read_file returns at most this much of a file; write_file accepts at most SANDBOX_WRITE_MAX_BYTES. */
  SANDBOX_READ_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024),
  SANDBOX_WRITE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /** A workspace whose compressed snapshot exceeds this is not snapshotted (the previous snapshots stay). */
  SANDBOX_SNAPSHOT_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
  SANDBOX_SNAPSHOTS_KEPT: z.coerce.number().int().positive().default(3),
  /** When the worker runs as root, each sandbox runs as its own unprivileged uid: base + 65536 + its slot, allocated once per (org, agent) in PostgreSQL. */
  SANDBOX_UID_BASE: z.coerce.number().int().min(1000).default(200_000),
  /** This sandbox host's id (its workspaces' home); by default a random id kept in DATA_DIR, so a restart keeps it. */
  SANDBOX_HOST_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .optional(),
  /** How long a host holds a sandbox without renewing (every third of it): a dead host's sandboxes move after this. */
  SANDBOX_LEASE_SECONDS: z.coerce.number().int().min(2).default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** When set, GET /metrics on the api needs `Authorization: Bearer <METRICS_TOKEN>`; unset, it is open, which NODE_ENV=production refuses (docs/operations.md "Observability"). */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** The worker's Prometheus endpoint (Temporal SDK metrics and ours); port 0 turns it off. */
  WORKER_METRICS_HOST: z.string().default('127.0.0.1'),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** OpenTelemetry traces go to this OTLP/HTTP endpoint (the standard variables); tracing is off when neither is set. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  /** Service name on spans; default `ars-api` / `ars-worker` by process. */
  OTEL_SERVICE_NAME: z.string().optional(),
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
