import { randomUUID } from 'node:crypto';
import cors from 'cors';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { Router, type Express, type Request } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { ApiDeps } from './deps.ts';
import { errorHandler, notFoundRoute } from './errors.ts';
import { demoTenantFile } from '../main/demo-tenant.ts';
import { mountConsole } from './console.ts';
import { mountDocs } from './docs.ts';
import { mountHealth } from './health.ts';
import { mountMcp } from './mcp/endpoint.ts';
import { httpMetrics, metricsEndpoint } from './metrics.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { requestLogContext } from './request-log-context.ts';
import { httpTracing } from './tracing.ts';
import { mountRoutes } from './route.ts';
import { allRoutes } from './routes/index.ts';
import { CALLBACK_PATH } from './services/tool-server-connect.ts';
import { isWidgetPath, widgetPreflight } from './widget/cors.ts';
import { widgetScript } from './widget/script.ts';

/** Largest accepted JSON body; larger requests get 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

declare module 'node:http' {
  interface IncomingMessage {
    /** The request body as received, for routes under /api/v1/flows/ (signature checks). */
    rawBody?: string;
  }
}

function keepRawBodyOfFlows(req: IncomingMessage, _res: ServerResponse, body: Buffer): void {
  if (req.url?.startsWith('/api/v1/flows/')) req.rawBody = body.toString('utf8');
}

export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  if (deps.config.http.trustProxy !== undefined) app.set('trust proxy', trustProxySetting(deps.config.http.trustProxy));
  // Security headers on every response. The API serves JSON and SSE; /docs and /console loosen the CSP for themselves only (docs.ts, console.ts).
  // No upgrade-insecure-requests: a plain-HTTP install (npm start on 127.0.0.1) must keep working in a browser.
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'none'"],
          styleSrc: ["'unsafe-inline'"],
          frameAncestors: ["'none'"],
          baseUri: ["'none'"],
          formAction: ["'none'"],
        },
      },
    }),
  );
  // The chat widget runs on customers' pages: its script is served to anyone, and its gateway answers
  // CORS for the origins each widget key allows (src/api/widget/cors.ts), not for CORS_ORIGINS.
  app.get('/widget.js', widgetScript());
  app.use(widgetPreflight(deps.db));
  // CORS is closed unless CORS_ORIGINS lists the browser origins that may call us.
  const origins = deps.config.http.corsOrigins;
  if (origins.length > 0) {
    const globalCors = cors({
      origin: origins,
      credentials: true,
      exposedHeaders: ['X-Run-Id', 'X-Task-Id', 'Idempotent-Replayed', 'X-Request-Id', 'Retry-After'],
      maxAge: 600,
    });
    app.use((req, res, next) => (isWidgetPath(req.path) ? next() : globalCors(req, res, next)));
  }
  // Probes and scrapes: outside the request log, request metrics, tracing and every limit.
  mountHealth(app, deps);
  app.get('/metrics', metricsEndpoint(deps.config.observability.metricsToken));
  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      // The completion line of a request about a run names it: request id (reqId), org, user, agent, task and run.
      customProps: (req, res) => runLogFields(req, res),
      serializers: requestLineSerializers,
    }),
  );
  app.use(httpMetrics);
  // Probes answered above stay up while draining (liveness stays true); every other request is counted
  // from here, so one whose body is still arriving when the drain starts gets to finish; later ones get 503.
  app.use(deps.drain.middleware);
  // Inbound flow requests are verified against the exact bytes their sender signed.
  app.use(express.json({ limit: MAX_BODY_BYTES, verify: keepRawBodyOfFlows }));
  app.use(requestLogContext);
  if (deps.config.observability.tracing) app.use(httpTracing);

  const document = buildOpenApiDocument(allRoutes);
  app.get('/openapi.json', (_req, res) => void res.json(document));
  mountDocs(app, document);
  mountConsole(app, {
    temporalUiUrl: deps.config.temporal.uiUrl,
    temporalNamespace: deps.config.temporal.namespace,
    demoTenantFile: demoTenantFile(deps.config.dataDir),
  });

  mountMcp(app, deps);
  const router = Router();
  mountRoutes(router, allRoutes, deps);
  app.use(router);
  app.use(notFoundRoute);
  app.use(errorHandler);
  return app;
}

/**
 * What the request line says of the request and the response: not their headers, which were most
 * of every line (~1.9 KB, helmet's dozen fixed response headers among them) and said nothing the
 * fields here and in runLogFields do not.
 */
const requestLineSerializers = {
  req: (req: {
    id: unknown;
    method: string;
    url: string;
    remoteAddress?: string;
    headers: IncomingMessage['headers'];
  }) => ({
    id: req.id,
    method: req.method,
    // The OAuth callback's query carries an authorization code and its state: not logged.
    url: req.url.startsWith(CALLBACK_PATH) ? `${CALLBACK_PATH}?(left out)` : req.url,
    remoteAddress: req.remoteAddress,
    userAgent: req.headers['user-agent'],
  }),
  res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
};

function runLogFields(req: IncomingMessage, res: ServerResponse): Record<string, unknown> {
  const caller = (req as Request).caller;
  const fields: Record<string, unknown> = {};
  if (caller) Object.assign(fields, { orgId: caller.orgId, userId: caller.userId });
  const agentId = req.headers['x-agent-id'] ?? (req as Request).agent?.id; // a widget request names no agent; its key does
  if (caller && typeof agentId === 'string') fields.agentId = agentId;
  const taskId = res.getHeader('X-Task-Id');
  const runId = res.getHeader('X-Run-Id');
  if (typeof taskId === 'string') fields.taskId = taskId;
  if (typeof runId === 'string') Object.assign(fields, { runId, workflowId: runId });
  return fields;
}

/** TRUST_PROXY as Express takes it: a hop count, true/false, or addresses and subnets. */
function trustProxySetting(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}
