import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { projectRoot } from '../../src/config.ts';
import { eventually } from '../support/eventually.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { exchange, readSse, userMessage } from '../support/http.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { closeTestDb, createTenant, testDb } from '../support/tenant.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

/**
 * Observability of a private api + worker pair: readiness under a PostgreSQL cut, both
 * Prometheus endpoints after a real run, and one trace from the HTTP request through the
 * workflow to the activity and the model call, exported over OTLP/HTTP to a receiver here.
 */
const KEY_ENV = 'OBSERVE_TEST_MODEL_KEY';
const METRICS_TOKEN = randomBytes(16).toString('hex');
let pgProxy: TcpProxy;
let api: ApiProcess;
let worker: WorkerProcess;
let fake: FakeOpenAi;
let otlp: { url: string; spans: OtlpSpan[]; server: Server };
let workerMetricsUrl: string;
let dataDir: string;
let who: { token: string; agentId: string; orgId: string };

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
}

beforeAll(async () => {
  const db = new URL(inject('databaseUrl'));
  pgProxy = await startTcpProxy(db.hostname, Number(db.port || 5432));
  const proxied = new URL(db);
  proxied.port = String(pgProxy.port);
  otlp = await startOtlpReceiver();
  const metricsPort = await freePort();
  workerMetricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const queue = `observe-${randomBytes(3).toString('hex')}`;
  dataDir = mkdtempSync(path.join(tmpdir(), 'ars-observe-'));
  const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, TEMPORAL_TASK_QUEUE: queue };
  [api, worker] = await Promise.all([
    startApiProcess({ ...tracing, DATABASE_URL: proxied.toString(), METRICS_TOKEN, RATE_LIMIT_EVENTS_PER_MINUTE: '1' }),
    startWorkerProcess(queue, {
      ...tracing,
      LOG_LEVEL: 'debug',
      [KEY_ENV]: 'sk-test',
      DATA_DIR: dataDir,
      WORKER_METRICS_PORT: String(metricsPort),
    }),
  ]);
  fake = await startFakeOpenAi({
    chunks: Array.from({ length: 12 }, (_, i) => `word${i} `),
    delayMs: 100,
    usage: { prompt_tokens: 11, completion_tokens: 12 },
  });
  const tenant = await createTenant({
    provider: 'openai-compatible',
    model: 'fake-model',
    base_url: fake.baseUrl,
    api_key_env: KEY_ENV,
  });
  who = { token: await exchange(tenant.keys.owner), agentId: tenant.agentId, orgId: tenant.orgId };
}, 120_000);

afterAll(async () => {
  await Promise.all([worker?.stop(), api?.close()]);
  await Promise.all([pgProxy?.close(), fake?.close(), new Promise((r) => otlp?.server.close(r))]);
  rmSync(dataDir, { recursive: true, force: true });
  await closeTestDb();
});

const headers = () => ({
  Authorization: `Bearer ${who.token}`,
  'X-Agent-Id': who.agentId,
  'Content-Type': 'application/json',
});
const scrapeApi = async () =>
  (await fetch(`${api.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();

/** The value of one series (name and exact label set, as Prometheus prints it); undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The sum of every series of `name` whose labels include all of `labels`. */
function total(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

describe('one streamed run, seen by metrics and traces', () => {
  let runId = '';
  let taskId = '';
  let duringRun = '';

  beforeAll(async () => {
    const res = await fetch(`${api.url}/api/run`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify(userMessage('observe me')),
    });
    expect(res.status).toBe(200);
    runId = res.headers.get('x-run-id')!;
    taskId = res.headers.get('x-task-id')!;
    let scrape: Promise<string> | undefined;
    const frames = await readSse(res, (f) => {
      if (f.data.type === 'TEXT_MESSAGE_CONTENT') scrape ??= scrapeApi(); // the model is still talking for ~1 s
    });
    expect(frames.at(-1)!.data.type).toBe('RUN_FINISHED');
    duringRun = await scrape!;
  }, 60_000);

  it('the api exports request durations by route pattern, runs, streams, relay lag and rate-limit rejections', async () => {
    const refused = await fetch(`${api.url}/metrics`); // METRICS_TOKEN set
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ detail: 'Metrics need Authorization: Bearer <METRICS_TOKEN>' });
    expect(total(duringRun, 'ars_runs_active', { status: 'executing', mode: 'fast' })).toBeGreaterThanOrEqual(1);
    expect(sample(duringRun, 'ars_sse_streams_open')).toBeGreaterThanOrEqual(1);

    // Two event-history reads against a budget of one: the second is a 429, counted by class.
    const events = (n: number) => fetch(`${api.url}/api/runs/${runId}/events?limit=${n}`, { headers: headers() });
    expect((await events(1)).status).toBe(200);
    expect((await events(2)).status).toBe(429);

    const text = await scrapeApi();
    expect(
      sample(text, 'ars_http_request_duration_seconds_count{method="POST",route="/api/run",status_code="200"}'),
    ).toBe(1);
    expect(
      sample(
        text,
        'ars_http_request_duration_seconds_count{method="GET",route="/api/runs/:run_id/events",status_code="429"}',
      ),
    ).toBe(1);
    expect(text).not.toContain(runId); // route patterns, never raw URLs
    expect(sample(text, 'ars_runs_started_total{mode="fast"}')).toBe(1);
    expect(sample(text, 'ars_sse_streams_open')).toBe(0);
    const lagCount = sample(text, 'ars_event_relay_lag_seconds_count')!;
    expect(lagCount).toBeGreaterThanOrEqual(12); // every word arrived live
    expect(sample(text, 'ars_event_relay_lag_seconds_sum')! / lagCount).toBeLessThan(5);
    expect(sample(text, 'ars_rate_limit_rejections_total{class="events"}')).toBe(1);
    expect(text).toContain('process_cpu_seconds_total');
  });

  it("the worker exports Temporal's SDK metrics with activity durations by type, model tokens and ended runs", async () => {
    // The SDK counts the workflow's completion after the run's end is stored: wait for both.
    const text = await eventually(
      'the worker to count the run and its workflow',
      async () => {
        const scraped = await (await fetch(workerMetricsUrl)).text();
        expect(total(scraped, 'ars_runs_ended_total', { status: 'completed' })).toBe(1);
        expect(total(scraped, 'temporal_workflow_completed_total', { workflow_type: 'agentRun' })).toBe(1);
        return scraped;
      },
      { timeout: 10_000 },
    );
    expect(
      total(text, 'temporal_activity_execution_latency_count', { activity_type: 'modelStep' }),
    ).toBeGreaterThanOrEqual(1);
    expect(total(text, 'temporal_activity_execution_latency_sum', { activity_type: 'modelStep' })).toBeGreaterThan(1); // 12 words × 100 ms
    expect(total(text, 'ars_model_tokens_total', { direction: 'input' })).toBe(11);
    expect(total(text, 'ars_model_tokens_total', { direction: 'output' })).toBe(12);
    expect(total(text, 'ars_runs_ended_total', { status: 'completed', mode: 'fast' })).toBe(1);
    expect(total(text, 'temporal_workflow_completed_total', { workflow_type: 'agentRun' })).toBe(1);
  });

  it("logs: the api's request line and the worker's Temporal lines about the run carry its request, org, task, run and workflow ids", async () => {
    const request = api.logs.find((l) => l.runId === runId && l.msg === 'request completed');
    expect(request).toMatchObject({ orgId: who.orgId, taskId, workflowId: runId, agentId: who.agentId });
    expect((request!.req as { id?: string }).id).toEqual(expect.any(String)); // pino-http's request id (X-Request-Id)
    // What the request was and how it ended, not its headers or the response's (they were most of every line).
    expect(request!.req).toEqual({
      id: expect.any(String),
      method: 'POST',
      url: '/api/run',
      remoteAddress: expect.any(String),
      userAgent: expect.any(String),
    });
    expect(request!.res).toEqual({ statusCode: 200 });
    expect(request!.responseTime).toEqual(expect.any(Number));
    const activityLines = () =>
      worker.stdout
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.component === 'temporal' && l.msg === 'Activity completed' && l.workflowId === runId);
    // A fast run's one regular activity (its bookkeeping runs as local activities, which the SDK does not
    // log); its line may reach stdout just after the run's last event reached the client.
    await eventually(
      'the modelStep activity line',
      () => expect(activityLines().map((l) => l.activityType)).toContain('modelStep'),
      { timeout: 5_000 },
    );
    for (const line of activityLines())
      expect(line).toMatchObject({
        runId,
        orgId: who.orgId,
        taskId,
        agentId: who.agentId,
        activityType: expect.any(String),
      });
    expect(worker.stdout.some((l) => l.includes('taskToken'))).toBe(false);
  });

  it('the Grafana dashboard (deploy/grafana) plots only series the two endpoints export', async () => {
    const dashboard = JSON.parse(
      readFileSync(path.join(projectRoot, 'deploy', 'grafana', 'dashboards', 'agent-run-service.json'), 'utf8'),
    ) as { panels: { targets: { expr: string }[] }[] };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    const used = new Set(exprs.flatMap((e) => e.match(/\b(?:ars|temporal)_[a-z_]+/g) ?? []));
    // Names of samples, and of families declared without one yet (a gauge with no active run).
    const lines = `${await scrapeApi()}\n${await (await fetch(workerMetricsUrl)).text()}`.split('\n');
    const exported = new Set(lines.map((l) => (l.startsWith('# TYPE ') ? l.split(' ')[2] : l.split(/[{ ]/)[0])));
    expect(used.size).toBeGreaterThanOrEqual(10);
    for (const name of used) expect(exported.has(name), name).toBe(true);
  });

  it('one trace spans the HTTP request, the workflow, its activities and the model call', async () => {
    const httpSpan = () => otlp.spans.find((s) => s.service === 'ars-api' && s.name === 'POST /api/run');
    await eventually('the api request span', () => expect(httpSpan()).toBeDefined(), { timeout: 20_000 });
    const traceId = httpSpan()!.traceId;
    const names = () => otlp.spans.filter((s) => s.traceId === traceId).map((s) => `${s.service} ${s.name}`);
    await eventually(
      'the spans of the run',
      () =>
        expect(names()).toEqual(
          expect.arrayContaining([
            'ars-api POST /api/run',
            'ars-api StartWorkflow:agentRun',
            'ars-worker RunWorkflow:agentRun',
            'ars-worker RunActivity:modelStep', // it also stores the run's `executing` and its end: no other activity
            'ars-worker model call',
          ]),
        ),
      { timeout: 20_000 },
    );
    // The model call is a child of the model step's activity span.
    const inTrace = otlp.spans.filter((s) => s.traceId === traceId);
    const model = inTrace.find((s) => s.name === 'model call')!;
    expect(inTrace.find((s) => s.spanId === model.parentSpanId)?.name).toBe('RunActivity:modelStep');
  });
});

describe('a run ended by deleting its task', () => {
  it('is counted by the api as ended with status deleted', async () => {
    const res = await fetch(`${api.url}/api/run/async`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify(userMessage('delete me mid-run')),
    });
    expect(res.status).toBe(202);
    const { task_id: taskId, run_id: runId } = (await res.json()) as { task_id: string; run_id: string };
    await eventually(
      'the run to be executing',
      async () => expect((await testDb().run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('executing'),
      {
        timeout: 15_000,
        interval: 100,
      },
    );
    expect((await fetch(`${api.url}/api/tasks/${taskId}`, { method: 'DELETE', headers: headers() })).status).toBe(200);
    expect(sample(await scrapeApi(), 'ars_runs_ended_total{status="deleted",mode="fast"}')).toBe(1);
  });
});

describe('readiness', () => {
  it('/healthz is alive; /readyz is 200 with every check up, 503 naming postgres while it is cut (metrics still scrape), 200 again after', async () => {
    const ready = async () => {
      const res = await fetch(`${api.url}/readyz`);
      return { status: res.status, body: (await res.json()) as { checks: Record<string, string>; down?: string[] } };
    };
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    await eventually('the api to be ready', async () => expect((await ready()).status).toBe(200), { timeout: 15_000 });
    expect((await ready()).body.checks).toEqual({ postgres: 'up', temporal: 'up', listen: 'up' });

    await pgProxy.cut();
    try {
      await eventually('the api to report PostgreSQL down', async () => expect((await ready()).status).toBe(503), {
        timeout: 15_000,
      });
      const { body } = await ready();
      expect(body.down).toContain('postgres');
      expect(body.checks.temporal).toBe('up');
      expect((await fetch(`${api.url}/healthz`)).status).toBe(200); // liveness asks no dependency
      const scrape = await fetch(`${api.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(scrape.status).toBe(200); // metrics still scrape; only the database-read gauge is left out
      expect(await scrape.text()).toContain('ars_http_request_duration_seconds_count');
    } finally {
      await pgProxy.restore();
    }
    await eventually('the api to be ready again', async () => expect((await ready()).status).toBe(200), {
      timeout: 20_000,
      interval: 250,
    });
  });
});

async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string }[] }[];
  }[];
}

/** The smallest OTLP/HTTP trace receiver: JSON exports to /v1/traces, kept in memory. */
async function startOtlpReceiver(): Promise<{ url: string; spans: OtlpSpan[]; server: Server }> {
  const spans: OtlpSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
        for (const rs of body.resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ ...s, service });
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, server };
}
