import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { ZodError } from 'zod';
import { isInfrastructureError } from '../infra/transient-errors.ts';

/** What a client is told to wait while PostgreSQL or Temporal is unreachable. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/** A failure with an HTTP status and a `detail` safe to show the client. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : 'validation failed');
    this.name = 'HttpError';
  }
}

export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export const badRequest = (detail: string) => new HttpError(400, detail);
export const unauthorized = (detail: string) => new HttpError(401, detail, { 'WWW-Authenticate': 'Bearer' });
export const forbidden = (detail: string) => new HttpError(403, detail);
export const notFound = (detail: string) => new HttpError(404, detail);
export const conflict = (detail: string) => new HttpError(409, detail);

/** 422 with one entry per zod issue; `loc` starts with where the value came from (body, query, path, header). */
export function validationError(where: string, error: ZodError): HttpError {
  return new HttpError(
    422,
    error.issues.map((issue) => ({ loc: [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))], msg: issue.message, type: issue.code })),
  );
}

export const notFoundRoute: RequestHandler = (req, _res, next) => {
  next(notFound(`No route for ${req.method} ${req.path}`));
};

/**
 * Maps every error to `{detail}`. Unexpected errors become a 500 that names only
 * a request id; the error itself goes to the log under the same id.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) {
    req.log?.error({ err }, 'error after response started');
    res.end();
    return;
  }
  if (err instanceof HttpError) {
    res.set(err.headers).status(err.status).json({ detail: err.detail });
    return;
  }
  const bodyError = err as { type?: string; status?: number };
  if (bodyError.type === 'entity.parse.failed') {
    res.status(400).json({ detail: 'Request body is not valid JSON' });
    return;
  }
  if (bodyError.type === 'entity.too.large') {
    res.status(413).json({ detail: 'Request body is too large' });
    return;
  }
  if (typeof bodyError.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) {
    res.status(bodyError.status).json({ detail: 'Request could not be read' });
    return;
  }
  if (isInfrastructureError(err)) {
    req.log?.warn({ err, requestId: req.id }, 'infrastructure unavailable');
    res.set('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS)).status(503).json({
      detail: `The service is briefly unavailable (its database or workflow engine cannot be reached); retry in ${OUTAGE_RETRY_AFTER_SECONDS} s`,
    });
    return;
  }
  req.log?.error({ err, requestId: req.id }, 'unexpected error');
  res.status(500).json({ detail: `Internal server error (request id ${String(req.id)})` });
};
