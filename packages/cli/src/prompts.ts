/**
 * Interactive answers to a run's human-input questions, one prompt per input type (@inquirer/prompts).
 * Esc dismisses a question (the answer is `{cancelled: true}`); Ctrl-C raises `PromptInterrupted`.
 */
import { emitKeypressEvents } from 'node:readline';
import type { InputAnswer, UserInputRequest } from '@agent-run/client';
import { confirm, editor, input, select } from '@inquirer/prompts';
import { printable } from './printable.ts';

/** What a USER_INPUT_REQUIRED event (or GET pending-input) says about the question. */
export type InputQuestion = UserInputRequest & { placeholder?: string | null };

/** The answer fields for POST /api/tasks/{task_id}/input (without request_id, run_id, input_type), per input type. */
export type AnswerFields = InputAnswer;

/** Ctrl-C in a prompt. */
export class PromptInterrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'PromptInterrupted';
  }
}

const DISMISSED = Symbol('dismissed');
type Asked<T> = T | typeof DISMISSED;

/** Ends every prompt of the current question: set while `answerInteractively` runs. */
let interrupt: AbortSignal | undefined;

/** Runs one prompt with Esc bound to dismiss, and Ctrl-C (or `interrupt`) to PromptInterrupted. */
async function ask<T>(
  prompt: (context: { signal: AbortSignal; output: NodeJS.WritableStream }) => Promise<T>,
): Promise<Asked<T>> {
  if (interrupt?.aborted) throw new PromptInterrupted();
  const abort = new AbortController();
  const stop = () => abort.abort();
  interrupt?.addEventListener('abort', stop);
  const onKey = (_: string, key?: { name?: string }) => {
    if (key?.name === 'escape') abort.abort();
  };
  emitKeypressEvents(process.stdin);
  process.stdin.on('keypress', onKey);
  try {
    // On stderr, so stdout carries the answer only (`agent-run run … > answer.txt` still asks).
    return await prompt({ signal: abort.signal, output: process.stderr });
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'ExitPromptError' || interrupt?.aborted) throw new PromptInterrupted();
    if (name === 'AbortPromptError') return DISMISSED;
    throw err;
  } finally {
    process.stdin.off('keypress', onKey);
    interrupt?.removeEventListener('abort', stop);
  }
}

const hint = (placeholder?: string | null) => (placeholder ? ` (${printable(placeholder)})` : '');

/** A choice shown without control characters, answered with the value the service sent. */
const choice = (value: string) => ({ name: printable(value), value });

/**
 * Asks `question` in the terminal and returns the answer fields for its input type. Aborting
 * `signal` (e.g. on SIGINT) ends the prompts with PromptInterrupted. Every text of the question
 * (the model wrote it) is shown through `printable`; answers keep the values the service sent.
 */
export async function answerInteractively(question: InputQuestion, signal?: AbortSignal): Promise<AnswerFields> {
  interrupt = signal;
  let answer: Asked<AnswerFields>;
  try {
    answer = await askFor(question);
  } finally {
    interrupt = undefined;
  }
  if (answer !== DISMISSED) return answer;
  process.stderr.write('(dismissed)\n');
  return { cancelled: true };
}

async function askFor(question: InputQuestion): Promise<Asked<AnswerFields>> {
  const q = { ...question, prompt: printable(question.prompt) };
  switch (q.input_type) {
    case 'confirmation':
      return wrap(await ask((c) => confirm({ message: q.prompt }, c)), (confirmed) => ({ confirmed }));
    case 'text':
      return wrap(await ask((c) => input({ message: q.prompt + hint(q.placeholder) }, c)), (value) => ({ value }));
    case 'number':
      return wrap(
        await ask((c) => input({ message: q.prompt + hint(q.placeholder), required: true, validate: isNumber }, c)),
        (value) => ({ value: value.trim() }),
      );
    case 'choice':
      return wrap(
        await ask((c) => select({ message: q.prompt, choices: (q.choices ?? []).map(choice) }, c)),
        (value) => ({ value }),
      );
    case 'multiline':
      return wrap(await askMultiline(q.prompt + hint(q.placeholder)), (value) => ({ value }));
    case 'plan_approval':
      return askPlan(q);
    case 'action_approval':
      return askAction(q);
    case 'structured_questions':
      return askQuestions(q);
    default:
      throw new Error(`unknown input type ${String(q.input_type satisfies never)}`);
  }
}

function wrap<T>(asked: Asked<T>, make: (v: T) => AnswerFields): Asked<AnswerFields> {
  return asked === DISMISSED ? DISMISSED : make(asked);
}

function withFeedback(
  feedback: Asked<{ feedback?: string }>,
  answer: { approved: boolean; modified_steps?: string[] },
): Asked<AnswerFields> {
  return feedback === DISMISSED ? DISMISSED : { ...answer, ...feedback };
}

function isNumber(value: string): true | string {
  return value.trim() !== '' && Number.isFinite(Number(value)) ? true : 'Enter a number';
}

/** $VISUAL/$EDITOR when set; otherwise one line per prompt until an empty line. */
async function askMultiline(message: string): Promise<Asked<string>> {
  if (process.env.VISUAL || process.env.EDITOR) return ask((c) => editor({ message, waitForUserInput: false }, c));
  process.stderr.write(`${message}\n`);
  const lines: string[] = [];
  for (;;) {
    const line = await ask((c) => input({ message: `line ${lines.length + 1} (empty line to finish)` }, c));
    if (line === DISMISSED) return DISMISSED;
    if (line === '') return lines.join('\n');
    lines.push(line);
  }
}

async function askPlan(q: InputQuestion): Promise<Asked<AnswerFields>> {
  const steps = (q.plan?.steps ?? []).map(printable);
  process.stderr.write(`${q.prompt}\n${steps.map((s, i) => `  ${i + 1}. ${s}`).join('\n')}\n`);
  const decision = await ask((c) =>
    select(
      {
        message: 'Plan',
        choices: [
          { name: 'Approve', value: 'approve' },
          { name: 'Edit the steps, then approve', value: 'edit' },
          { name: 'Reject', value: 'reject' },
        ],
      },
      c,
    ),
  );
  if (decision === DISMISSED) return DISMISSED;
  if (decision === 'reject')
    return withFeedback(await askFeedback('Why? (feedback for the agent, optional)'), { approved: false });
  if (decision === 'approve') return { approved: true };
  const edited = await editSteps(steps);
  if (edited === DISMISSED) return DISMISSED;
  return withFeedback(await askFeedback('Feedback for the agent (optional)'), {
    approved: true,
    modified_steps: edited,
  });
}

/** Each step prefilled and editable (empty removes it), then new steps until an empty line. */
async function editSteps(steps: string[]): Promise<Asked<string[]>> {
  const kept: string[] = [];
  for (const [i, step] of steps.entries()) {
    const edited = await ask((c) =>
      input({ message: `step ${i + 1} (empty removes it)`, default: step, prefill: 'editable' }, c),
    );
    if (edited === DISMISSED) return DISMISSED;
    if (edited.trim()) kept.push(edited.trim());
  }
  for (;;) {
    const added = await ask((c) => input({ message: `new step ${kept.length + 1} (empty to finish)` }, c));
    if (added === DISMISSED) return DISMISSED;
    if (!added.trim()) break;
    kept.push(added.trim());
  }
  return kept.length ? kept : DISMISSED;
}

async function askAction(q: InputQuestion): Promise<Asked<AnswerFields>> {
  const action = q.action;
  const tool = printable(action?.tool_name ?? 'tool');
  const args = action?.arguments === undefined ? '' : printable(JSON.stringify(action.arguments, null, 2));
  process.stderr.write(
    `${q.prompt}\n  ${tool}${action?.sensitive ? ' (sensitive: owners and admins only)' : ''} ${args}\n`,
  );
  const decision = await ask((c) =>
    select(
      {
        message: `Allow ${tool}?`,
        choices: [
          { name: 'Approve once', value: 'once' },
          { name: `Approve ${tool} for the rest of this run`, value: 'run' },
          { name: `Always approve ${tool} for this agent`, value: 'always' },
          { name: 'Reject', value: 'reject' },
        ],
      },
      c,
    ),
  );
  if (decision === DISMISSED) return DISMISSED;
  if (decision === 'once') return { approved: true };
  if (decision === 'run') return { approved: true, approve_run_scope: true };
  if (decision === 'always') return { approved: true, approve_always: true };
  return withFeedback(await askFeedback('Why? (feedback for the agent, optional)'), { approved: false });
}

async function askFeedback(message: string): Promise<Asked<{ feedback?: string }>> {
  const text = await ask((c) => input({ message }, c));
  if (text === DISMISSED) return DISMISSED;
  return text.trim() ? { feedback: text.trim() } : {};
}

/** One question at a time: a list when it offers choices, a line of text otherwise. */
async function askQuestions(q: InputQuestion): Promise<Asked<AnswerFields>> {
  process.stderr.write(`${q.prompt}\n`);
  const answers: Record<string, string> = {};
  for (const item of q.questions ?? []) {
    const choices = (item.choices ?? []).map(choice);
    const message = printable(item.question);
    const answer = await ask((c) => (choices.length ? select({ message, choices }, c) : input({ message }, c)));
    if (answer === DISMISSED) return DISMISSED;
    answers[item.question] = answer;
  }
  return { answers };
}
