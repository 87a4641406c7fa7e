import { z } from 'zod';
import { defineTool } from './definition.ts';

/** Input types a tool may ask for; plan_approval and action_approval are raised by the run's gates, not by tools. */
export const askableInputTypes = [
  'confirmation',
  'text',
  'number',
  'choice',
  'multiline',
  'structured_questions',
] as const;

const question = z.object({
  question: z.string().min(1).max(2000),
  choices: z.array(z.string().min(1).max(500)).max(20).optional(),
});

export const requestUserInputTool = defineTool({
  name: 'request_user_input',
  kind: 'human',
  description:
    'Ask the user for input and wait for the answer. input_type: confirmation (yes/no), text, number, choice (give choices), ' +
    'multiline, or structured_questions (give questions; the answer maps each question to its answer).',
  input: z
    .object({
      input_type: z.enum(askableInputTypes),
      prompt: z.string().min(1).max(4000),
      choices: z.array(z.string().min(1).max(500)).min(2).max(20).optional(),
      questions: z.array(question).min(1).max(20).optional(),
      placeholder: z.string().max(200).optional(),
    })
    .refine((i) => i.input_type !== 'choice' || (i.choices?.length ?? 0) >= 2, {
      message: 'choice needs at least two choices',
      path: ['choices'],
    })
    .refine((i) => i.input_type !== 'structured_questions' || (i.questions?.length ?? 0) >= 1, {
      message: 'structured_questions needs questions',
      path: ['questions'],
    }),
});

export const askUserQuestionTool = defineTool({
  name: 'ask_user_question',
  kind: 'human',
  description: 'Ask the user one question and wait for the answer; give choices to offer a fixed set of answers.',
  input: question,
});

export const humanTools = [requestUserInputTool, askUserQuestionTool];
