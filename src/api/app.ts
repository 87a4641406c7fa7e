import { randomUUID } from 'node:crypto';
import cors from 'cors';
import express, { Router, type Express } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { ApiDeps } from './deps.ts';
import { errorHandler, notFoundRoute } from './errors.ts';
import { buildOpenApiDocument, openApiHtml } from './openapi.ts';
import { mountRoutes } from './route.ts';
import { allRoutes } from './routes/index.ts';

/** Largest accepted JSON body; larger requests get 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  if (deps.config.http.trustProxy !== undefined) app.set('trust proxy', trustProxySetting(deps.config.http.trustProxy));
  // Security headers on every response. The API serves JSON and SSE; /docs is plain HTML with inline style only.
  // No upgrade-insecure-requests: a plain-HTTP install (npm start on 127.0.0.1) must keep working in a browser.
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], styleSrc: ["'unsafe-inline'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
      },
    }),
  );
  // CORS is closed unless CORS_ORIGINS lists the browser origins that may call us.
  const origins = deps.config.http.corsOrigins;
  if (origins.length > 0) {
    app.use(
      cors({
        origin: origins,
        credentials: true,
        exposedHeaders: ['X-Run-Id', 'X-Task-Id', 'Idempotent-Replayed', 'X-Request-Id', 'Retry-After'],
        maxAge: 600,
      }),
    );
  }
  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      autoLogging: { ignore: (req) => req.url === '/healthz' },
    }),
  );
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  // Probes answer while draining (liveness stays true); every other request is counted from here,
  // so one whose body is still arriving when the drain starts gets to finish; later ones get 503.
  app.use(deps.drain.middleware);
  app.use(express.json({ limit: MAX_BODY_BYTES }));

  const document = buildOpenApiDocument(allRoutes);
  const html = openApiHtml(document);
  app.get('/openapi.json', (_req, res) => void res.json(document));
  app.get('/docs', (_req, res) => void res.type('html').send(html));

  const router = Router();
  mountRoutes(router, allRoutes, deps);
  app.use(router);
  app.use(notFoundRoute);
  app.use(errorHandler);
  return app;
}

/** TRUST_PROXY as Express takes it: a hop count, true/false, or addresses and subnets. */
function trustProxySetting(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}
