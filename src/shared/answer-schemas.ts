import { z } from 'zod';
import { stripCancelled, type InputType, type PendingRequest } from './input-requests.ts';

/*
 * The zod side of input requests, apart from input-requests.ts: a workflow loads this module
 * only when it checks an answer (see src/workflows/lazy-modules.ts).
 */

const feedback = z.string().max(4000).optional();

/** The answer fields of each input type (POST /api/tasks/{task_id}/input, minus request_id/run_id/input_type). */
export const answerSchemas = {
  confirmation: z.strictObject({ confirmed: z.boolean(), response_text: z.string().max(4000).optional() }),
  text: z.strictObject({ value: z.string().max(20_000) }),
  number: z.strictObject({ value: z.string().max(100) }),
  choice: z.strictObject({ value: z.string().max(500) }),
  multiline: z.strictObject({ value: z.string().max(100_000) }),
  plan_approval: z.strictObject({
    approved: z.boolean(),
    modified_steps: z.array(z.string().min(1).max(2000)).min(1).max(50).optional(),
    feedback,
  }),
  action_approval: z.strictObject({
    approved: z.boolean(),
    approve_always: z.boolean().optional(),
    approve_run_scope: z.boolean().optional(),
    feedback,
  }),
  structured_questions: z.strictObject({ answers: z.record(z.string(), z.string().max(20_000)) }),
} satisfies Record<InputType, z.ZodType>;

export type Answer =
  { cancelled: true } | ({ cancelled?: false } & { [K in InputType]: z.infer<(typeof answerSchemas)[K]> }[InputType]);

/** What is wrong with an answer: where in the answer's fields (`loc`, as the input endpoint's body names them), what, and its kind. */
export interface AnswerProblem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * Checks what a schema cannot: that the answer fits the question asked
 * (a listed choice, a number, every question answered). Returns the problem, or undefined.
 */
export function answerProblem(request: PendingRequest, answer: Answer): AnswerProblem | undefined {
  if (answer.cancelled) return undefined;
  const parsed = answerSchemas[request.inputType].safeParse(stripCancelled(answer));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      loc: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
      msg: `${request.inputType} answer: ${issue.message}`,
      type: issue.code,
    };
  }
  const value = parsed.data as Record<string, unknown>;
  const problem = (field: string, msg: string): AnswerProblem => ({ loc: [field], msg, type: 'value_error' });
  switch (request.inputType) {
    case 'number':
      return Number.isFinite(Number(value.value)) && String(value.value).trim() !== ''
        ? undefined
        : problem('value', 'value must be a number');
    case 'choice': {
      const choices = request.details.choices ?? [];
      return choices.includes(value.value as string)
        ? undefined
        : problem('value', `value must be one of: ${choices.join(', ')}`);
    }
    case 'structured_questions': {
      const questions = (request.details.questions ?? []).map((q) => q.question);
      const answers = value.answers as Record<string, string>;
      const missing = questions.filter((q) => !(q in answers));
      const unknown = Object.keys(answers).filter((k) => !questions.includes(k));
      if (missing.length) return problem('answers', `answers is missing: ${missing.join(' | ')}`);
      if (unknown.length) return problem('answers', `answers has unknown questions: ${unknown.join(' | ')}`);
      return undefined;
    }
    default:
      return undefined;
  }
}
