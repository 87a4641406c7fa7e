import { z } from 'zod';
import { answerSchemas } from '../shared/answer-schemas.ts';
import { inputTypes, type Answer } from '../shared/input-requests.ts';
import type { ParsedAnswer } from './services/input-answers.ts';
import { parse } from './validation.ts';

const envelope = z.object({ request_id: z.string().min(1), run_id: z.string().min(1), input_type: z.enum(inputTypes) });
const dismissal = envelope.extend({ cancelled: z.literal(true) }).strict();

/**
 * Reads an answer body in two steps, so a 422 names the field that is wrong
 * for *this* input type rather than listing every type's alternatives.
 */
export function parseAnswerBody(body: unknown): ParsedAnswer {
  const head = parse(envelope, body, 'body');
  if ((body as { cancelled?: unknown }).cancelled === true) {
    parse(dismissal, body, 'body');
    return { requestId: head.request_id, runId: head.run_id, inputType: head.input_type, answer: { cancelled: true } };
  }
  const full = answerSchemas[head.input_type].extend({ ...envelope.shape, cancelled: z.literal(false).optional() });
  const {
    request_id: _r,
    run_id: _u,
    input_type: _t,
    cancelled: _c,
    ...answer
  } = parse(full, body, 'body') as Record<string, unknown>;
  return { requestId: head.request_id, runId: head.run_id, inputType: head.input_type, answer: answer as Answer };
}
