import { z } from 'zod';

/** `{"detail": "..."}`: every error except 422. */
export const errorSchema = z.object({ detail: z.string() }).meta({ id: 'Error' });

/** 422: one entry per problem, `loc` says where (body, query, path, header) and which field. */
export const validationErrorSchema = z
  .object({
    detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })),
  })
  .meta({ id: 'ValidationError' });

/**
 * A `limit` query parameter: an integer from 1 to `max`, `fallback` when absent. One problem per bad
 * value: a bound that fails stops the checks after it (zod's integer check would add its own bound).
 */
export function pageLimit(max: number, fallback: number) {
  return z.coerce.number().min(1, { abort: true }).max(max, { abort: true }).int().default(fallback);
}

export const errorResponses = {
  401: { description: 'Missing, invalid or expired token', schema: errorSchema },
  403: { description: 'No access to the agent or task', schema: errorSchema },
  404: { description: 'Unknown task, run or agent, or one the caller may not see', schema: errorSchema },
  422: { description: 'The request failed schema validation', schema: validationErrorSchema },
} as const;
