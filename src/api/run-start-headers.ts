import type { Request } from 'express';
import { z } from 'zod';
import { RUN_CLIENT_HEADER, runClientFromHeader, runClients, type RunClient } from '../shared/run-client.ts';
import { idempotencyHeaderSchema } from './idempotency-header.ts';

/** The documented request headers of POST /api/run and /api/run/async. */
export const runStartHeadersSchema = idempotencyHeaderSchema.extend({
  [RUN_CLIENT_HEADER.toLowerCase()]: z
    .string()
    .max(100)
    .optional()
    .describe(
      'The client starting the run, shown as its source in GET /api/runs: `cli`, `sdk` or `console` (the official clients ' +
        `send it); any other value is ignored. A label, not a permission (${runClients.join(', ')} are the sources it can show).`,
    ),
});

/** The client the request says it comes from, if it is one that says so. */
export function runClientOf(req: Request): RunClient | undefined {
  return runClientFromHeader(req.get(RUN_CLIENT_HEADER));
}
