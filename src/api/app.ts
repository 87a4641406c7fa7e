import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { ApiDeps } from './deps.ts';
import { errorHandler, notFoundRoute } from './errors.ts';
import { authRoutes } from './routes/auth.ts';
import { runRoutes } from './routes/runs.ts';

/** Largest accepted JSON body; larger requests get 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (req, res) => {
        const id = (req.headers['x-request-id'] as string | undefined)?.slice(0, 100) || randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      autoLogging: { ignore: (req) => req.url === '/healthz' },
    }),
  );
  app.use(express.json({ limit: MAX_BODY_BYTES }));
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.use(authRoutes(deps));
  app.use(runRoutes(deps));
  app.use(notFoundRoute);
  app.use(errorHandler);
  return app;
}
