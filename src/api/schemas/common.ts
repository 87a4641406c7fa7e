import { z } from 'zod';

/** `{"detail": "..."}`: every error except 422. */
export const errorSchema = z.object({ detail: z.string() }).meta({ id: 'Error' });

/** 422: one entry per problem, `loc` says where (body, query, path, header) and which field. */
export const validationErrorSchema = z
  .object({
    detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })),
  })
  .meta({ id: 'ValidationError' });

export const errorResponses = {
  401: { description: 'Missing, invalid or expired token', schema: errorSchema },
  403: { description: 'No access to the agent or task', schema: errorSchema },
  404: { description: 'Unknown task, run or agent, or one the caller may not see', schema: errorSchema },
  422: { description: 'The request failed schema validation', schema: validationErrorSchema },
} as const;
