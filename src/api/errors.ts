import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { ZodError } from 'zod';
import { DomainError } from '../shared/domain-error.ts';
import { isInfrastructureError } from '../connections/transient-errors.ts';

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
export const paymentRequired = (detail: string) => new HttpError(402, detail);
export const notAllowed = (detail: string, allow: string) => new HttpError(405, detail, { Allow: allow });
export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new HttpError(429, detail, { 'Retry-After': String(retryAfterSeconds) });
export const unavailable = (detail: string, retryAfterSeconds: number) =>
  new HttpError(503, detail, { 'Retry-After': String(retryAfterSeconds) });

/** 422 about one value; `loc` says where it came from (`['query', 'cursor']`, `['header', 'x-agent-id']`). */
export const invalidValue = (loc: (string | number)[], msg: string, type = 'value_error') =>
  new HttpError(422, [{ loc, msg, type }]);

/** 422 with one entry per zod issue; `loc` starts with where the value came from (body, query, path, header). */
export function validationError(where: string, error: ZodError): HttpError {
  return new HttpError(
    422,
    error.issues.map((issue) => ({
      loc: [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
      msg: issue.message,
      type: issue.code,
    })),
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
  if (res.headersSent) return endStartedResponse(res, err);
  const http = toHttpError(err, req);
  res.set(http.headers).status(http.status).json({ detail: http.detail });
};

/** An error once the response has begun (a stream): nothing more can be said to the client, so it is logged and the response ends. */
export function endStartedResponse(res: Response, err: unknown): void {
  res.req.log?.error({ err }, 'error after response started');
  res.end();
}

/** A use case's refusal as the api answers it. */
export function httpErrorOf(err: DomainError): HttpError {
  const retryAfter = err.retryAfterSeconds ?? OUTAGE_RETRY_AFTER_SECONDS;
  switch (err.kind) {
    case 'invalid':
      return badRequest(err.message);
    case 'invalid_field':
      return invalidValue(err.field?.loc ?? [], err.message, err.field?.type);
    case 'unauthenticated':
      return unauthorized(err.message);
    case 'payment_required':
      return paymentRequired(err.message);
    case 'forbidden':
      return forbidden(err.message);
    case 'not_found':
      return notFound(err.message);
    case 'conflict':
      return conflict(err.message);
    case 'rate_limited':
      return tooManyRequests(err.message, retryAfter);
    case 'unavailable':
      return unavailable(err.message, retryAfter);
  }
}

/** The one mapping from whatever a request threw to the status, headers and `detail` its client gets. */
function toHttpError(err: unknown, req: Request): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof DomainError) return httpErrorOf(err);
  const bodyError = err as { type?: string; status?: number };
  if (bodyError.type === 'entity.parse.failed') return badRequest('Request body is not valid JSON');
  if (bodyError.type === 'entity.too.large') return new HttpError(413, 'Request body is too large');
  if (typeof bodyError.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) {
    return new HttpError(bodyError.status, 'Request could not be read');
  }
  if (isInfrastructureError(err)) {
    req.log?.warn({ err, requestId: req.id }, 'infrastructure unavailable');
    return unavailable(
      `The service is briefly unavailable (its database or workflow engine cannot be reached); retry in ${OUTAGE_RETRY_AFTER_SECONDS} s`,
      OUTAGE_RETRY_AFTER_SECONDS,
    );
  }
  req.log?.error({ err, requestId: req.id }, 'unexpected error');
  return new HttpError(500, `Internal server error (request id ${String(req.id)})`);
}
