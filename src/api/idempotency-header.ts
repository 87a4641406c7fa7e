import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { z } from 'zod';
import { badRequest } from './errors.ts';
import { IDEMPOTENCY_TTL_HOURS, type IdempotencyClaim } from './services/idempotency.ts';

/** The documented request header of the three run-starting operations. */
export const idempotencyHeaderSchema = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters')
    .optional()
    .describe(
      'Makes retrying this request safe. Any unique string (1-255 visible ASCII characters; a UUID is best), scoped to your ' +
        `organization and user and kept ${IDEMPOTENCY_TTL_HOURS} h. The same key with the same body returns the run the first ` +
        'request started instead of starting another (header `Idempotent-Replayed: true`): a streamed request re-attaches to the ' +
        "run's stream from its first event, a background one gets the same 202 body. The same key with a different body (or on " +
        'another of the three run-starting operations) is 422 and changes nothing. A request refused with 4xx or 503 stores no ' +
        'key, so it can be retried with the same key.',
    ),
});

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** The claim carried by the request, if any; a malformed key → 400 before anything is stored. */
export function idempotencyClaim(req: Request, operation: string, body: unknown): IdempotencyClaim | undefined {
  const key = req.get('idempotency-key');
  if (key === undefined) return undefined;
  if (key.length === 0 || key.length > 255 || !VISIBLE_ASCII.test(key)) {
    throw badRequest('Idempotency-Key must be 1-255 visible ASCII characters (a UUID is best)');
  }
  const requestHash = createHash('sha256').update(JSON.stringify({ operation, body })).digest('hex');
  return { key, requestHash };
}
