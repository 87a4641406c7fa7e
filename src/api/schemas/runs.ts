import { z } from 'zod';

/** Body of a 202: a run dispatched to the background. */
export const backgroundRunSchema = z
  .object({
    id: z.string().describe('Run id'),
    task_id: z.string(),
    type: z.literal('pending'),
    status: z.literal('pending'),
    routing_reason: z.string(),
    stream_endpoint: z.null(),
    created_at: z.string().describe('ISO 8601 UTC'),
  })
  .meta({ id: 'BackgroundRun' });
