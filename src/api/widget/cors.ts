import type { Request, RequestHandler, Response } from 'express';
import type { ApiDeps } from '../deps.ts';
import { forbidden } from '../errors.ts';
import { someWidgetKeyAllows } from '../services/widget-sessions.ts';

/** Every widget gateway path starts with this; the global CORS_ORIGINS setting does not apply below it. */
export const WIDGET_PREFIX = '/api/v1/widget';

const ALLOWED_HEADERS = 'Authorization, Content-Type, Last-Event-ID, Idempotency-Key';
const EXPOSED_HEADERS = 'X-Run-Id, X-Task-Id, Retry-After, X-Request-Id, Idempotent-Replayed';

export const isWidgetPath = (path: string) => path === WIDGET_PREFIX || path.startsWith(`${WIDGET_PREFIX}/`);

/**
 * Answers CORS preflights of widget paths. A preflight carries neither the widget key nor
 * the visitor token, so it is allowed for an origin that some unrevoked widget key lists;
 * the request itself is then checked against its own key (`allowOriginOf`), and refused
 * with 403 (and no CORS headers) from any other origin.
 */
export function widgetPreflight(db: ApiDeps['db']): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'OPTIONS' || !isWidgetPath(req.path)) return next();
    const origin = req.get('origin');
    res.vary('Origin');
    if (origin && (await someWidgetKeyAllows(db, origin))) {
      res.set({
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
        'Access-Control-Allow-Headers': ALLOWED_HEADERS,
        'Access-Control-Max-Age': '600',
      });
    }
    res.status(204).end();
  };
}

/**
 * The request's `Origin` must be one the widget key allows (403 otherwise, or when the
 * header is missing: browsers always send it on the widget's cross-origin calls); the
 * response then carries the CORS headers for that origin only.
 */
export function allowOriginOf(req: Request, res: Response, allowed: string[]): void {
  res.vary('Origin');
  const origin = req.get('origin');
  if (!origin) throw forbidden('Widget requests must carry an Origin header that the widget key allows');
  if (!allowed.includes(origin)) throw forbidden(`Origin ${origin} is not allowed for this widget key`);
  res.set({
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    'Cross-Origin-Resource-Policy': 'cross-origin',
  });
}
