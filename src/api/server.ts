import { createSecretBox } from '../auth/secret-box.ts';
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { createTokenService } from '../auth/tokens.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { startTracing } from '../observability/tracing.ts';
import { temporalConnectionOptions } from '../connections/temporal.ts';
import { createApp } from './app.ts';
import { Drain } from './drain.ts';
import { watchActiveRuns } from './metrics.ts';
import { createRateLimits } from './middleware/rate-limit.ts';
import { readEvents } from '../db/event-log.ts';
import { EventHub } from './streaming/event-hub.ts';
import { startRunReconciler } from './loops/reconcile-runs.ts';
import { moveQueue } from './services/run-queue.ts';
import { startWebhookDispatcher } from './loops/webhook-dispatch.ts';
import { startFlowDispatcher } from './loops/flow-dispatch.ts';
import { OrgStartGate } from './services/org-start-gate.ts';
import { StreamSlots } from './streaming/stream-slots.ts';

export interface ApiHandle {
  url: string;
  /**
   * Drains, then closes: stops accepting connections, refuses new requests with 503, tells open
   * streams to reconnect, waits up to `graceMs` for requests in flight, then drops what is left.
   */
  close(graceMs?: number): Promise<void>;
}

/** Connects the api's dependencies and listens; `db` (a client of `databaseUrl`) is closed with the api. */
export async function startApi(config: Config, databaseUrl: string, db: Db, logger: Logger): Promise<ApiHandle> {
  const tracing = await startTracing(config, 'ars-api');
  watchActiveRuns(db);
  const hub = new EventHub(databaseUrl, logger, (runId, after, limit) => readEvents(db, runId, after, limit));
  await hub.start();
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  // With tracing on, starting a workflow (and every update, signal, query) carries the request's trace to the worker.
  // Imported only with tracing on, like the SDK (startTracing).
  const interceptors = tracing
    ? {
        workflow: [
          new (await import('@temporalio/interceptors-opentelemetry')).OpenTelemetryWorkflowClientInterceptor({
            tracer: tracing.tracer,
          }),
        ],
      }
    : undefined;
  const temporal = new Client({ connection, namespace: config.temporal.namespace, interceptors });
  const rateLimits = createRateLimits(config.rateLimits, databaseUrl, logger);
  const streams = new StreamSlots(config.streams);
  const drain = new Drain();
  const deps = {
    db,
    config,
    temporal,
    tokens: createTokenService(config.jwt),
    secrets: createSecretBox(config.secrets.key),
    hub,
    logger,
    rateLimits,
    streams,
    drain,
    startGate: new OrgStartGate(config.runStartsInFlightPerOrg),
  };
  const app = createApp(deps);
  const reconciler = startRunReconciler(deps);
  hub.onQueueToMove((taskId) => void moveQueue(deps, taskId));
  const webhookDispatcher = startWebhookDispatcher(deps);
  const flowDispatcher = startFlowDispatcher(deps);
  // Express 5 hands a listen error (the port is taken) to this callback: the process must fail, not run without listening.
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.api.port, config.api.host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.api.port;
  /** Set by the first close: a second one (Ctrl-C signals the whole process group, and `npm start` forwards it too) waits for it. */
  let closing: Promise<void> | undefined;
  const closeOnce = async (graceMs: number) => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await reconciler.stop();
    await webhookDispatcher.stop();
    await flowDispatcher.stop();
    const streamsTold = streams.open;
    const drained = await drain.drain(graceMs);
    logger.info(
      { drained, streamsTold, requestsLeft: drain.requestsInFlight },
      drained ? 'api drained' : 'api drain timed out; closing the requests left',
    );
    server.closeAllConnections();
    await closed;
    await hub.stop();
    await rateLimits.close();
    await connection.close();
    await db.$disconnect();
    await tracing?.shutdown();
  };
  return {
    url: `http://${config.api.host}:${port}`,
    close: (graceMs = 0) => (closing ??= closeOnce(graceMs)),
  };
}
