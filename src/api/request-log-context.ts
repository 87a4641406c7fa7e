import { AsyncLocalStorage } from 'node:async_hooks';
import type { Request, RequestHandler } from 'express';

const store = new AsyncLocalStorage<Request>();

/**
 * The request a log line is written during (a pino mixin for the api's logger): its id
 * (`reqId`, the `X-Request-Id`) and, once authenticated, the caller's org and user. Lines
 * about a run add `runId`/`taskId` themselves.
 */
export function requestLogFields(): Record<string, unknown> {
  const req = store.getStore();
  if (!req) return {};
  const fields: Record<string, unknown> = { reqId: req.id };
  if (req.caller) Object.assign(fields, { orgId: req.caller.orgId, userId: req.caller.userId });
  return fields;
}

/** Makes the request findable by requestLogFields for everything its handlers do. Mounted after body parsing. */
export const requestLogContext: RequestHandler = (req, _res, next) => store.run(req, next);
