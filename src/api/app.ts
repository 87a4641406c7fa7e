import { randomUUID } from 'node:crypto';
import express, { Router, type Express } from 'express';
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
  app.use(express.json({ limit: MAX_BODY_BYTES }));

  const document = buildOpenApiDocument(allRoutes);
  const html = openApiHtml(document);
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/openapi.json', (_req, res) => void res.json(document));
  app.get('/docs', (_req, res) => void res.type('html').send(html));

  const router = Router();
  mountRoutes(router, allRoutes, deps);
  app.use(router);
  app.use(notFoundRoute);
  app.use(errorHandler);
  return app;
}
