import { z } from 'zod';

export const COMMENT_MAX_LENGTH = 2000;

export const commentRequestSchema = z
  .strictObject({
    content: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(COMMENT_MAX_LENGTH, `must be at most ${COMMENT_MAX_LENGTH} characters`),
  })
  .meta({ id: 'CommentRequest' });

export const commentResponseSchema = z
  .object({
    comment_id: z.string(),
    task_id: z.string(),
    run_id: z.string(),
    status: z.literal('queued').describe('Delivered to the run; the agent reads it before its next model step'),
    created_at: z.string().describe('ISO 8601 UTC'),
  })
  .meta({ id: 'CommentAccepted' });

export const taskRunParamsSchema = z.object({ task_id: z.string().min(1), run_id: z.string().min(1) });
