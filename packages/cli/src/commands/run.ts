/**
 * `run` (start a run and stream it), `follow` (stream a task's latest run again) and `answer`
 * (answer the question a run waits on).
 */
import type { RunMode } from '@agent-run/client';
import type { Command } from 'commander';
import { Option } from 'commander';
import { requireAgent } from '../config.ts';
import { action, optString, type Context } from '../context.ts';
import { drive } from '../drive.ts';
import { CliError, ExitCode } from '../exit-codes.ts';
import { answerInteractively, PromptInterrupted, type AnswerFields, type InputQuestion } from '../prompts.ts';

/** Adds run, follow and answer to `program`. */
export function addRunCommands(program: Command): void {
  program
    .command('run')
    .description(
      'start a run and stream its answer (text to stdout, progress to stderr); asks its questions interactively',
    )
    .argument('<message>', 'the user message')
    .option('--task <id>', 'continue this task (its conversation is the context)')
    .addOption(new Option('--mode <mode>', 'routing mode').choices(['auto', 'fast', 'deep']).default('auto'))
    .option('--background', 'start the run in the background and print its 202 metadata as JSON')
    .option('--json', 'print every event as one JSON line (NDJSON); never prompts')
    .option('--cancel-on-interrupt', 'Ctrl-C cancels the run instead of detaching from it')
    .option('--timezone <tz>', 'IANA timezone for date-aware answers')
    .action(action(run));

  program
    .command('follow')
    .description("stream a task's latest run (replay, then live), asking its pending question if any")
    .argument('<task_id>')
    .option('--json', 'print every event as one JSON line (NDJSON); never prompts')
    .option('--cancel-on-interrupt', 'Ctrl-C cancels the run instead of detaching from it')
    .action(action(follow));

  program
    .command('answer')
    .description('answer the question a task waits on: interactively, or with the answer fields as JSON')
    .argument('<task_id>')
    .argument('[answer_json]', 'e.g. \'{"value":"blue"}\', \'{"confirmed":true}\', \'{"cancelled":true}\'')
    .option('--json', 'print the response as JSON')
    .action(action(answer));
}

async function run(ctx: Context, [message]: string[]): Promise<number> {
  const agentId = requireAgent(ctx.settings);
  if (!message?.trim()) throw new CliError('the message is empty', ExitCode.usage);
  const request = {
    message,
    agentId,
    taskId: optString(ctx.opts.task),
    mode: optString(ctx.opts.mode) as RunMode | undefined,
    timezone: optString(ctx.opts.timezone),
  };
  const client = ctx.client();
  if (ctx.opts.background) {
    const meta = await client.runs.start(request);
    ctx.term.json(meta, ctx.opts.json ? undefined : 2);
    if (!ctx.opts.json) ctx.term.note(`follow it with: agent-run follow ${meta.task_id}`);
    return ExitCode.completed;
  }
  const abort = new AbortController();
  const stream = client.runs.stream({ ...request, signal: abort.signal });
  return drive(client, stream, ctx.term, {
    json: Boolean(ctx.opts.json),
    cancelOnInterrupt: Boolean(ctx.opts.cancelOnInterrupt),
    abort,
  });
}

async function follow(ctx: Context, [taskId]: string[]): Promise<number> {
  requireAgent(ctx.settings);
  const client = ctx.client();
  const abort = new AbortController();
  const stream = client.tasks.stream(taskId!, { signal: abort.signal });
  return drive(client, stream, ctx.term, {
    json: Boolean(ctx.opts.json),
    cancelOnInterrupt: Boolean(ctx.opts.cancelOnInterrupt),
    abort,
  });
}

async function answer(ctx: Context, [taskId, answerJson]: string[]): Promise<number> {
  requireAgent(ctx.settings);
  const client = ctx.client();
  const pending = await client.input.pending(taskId!);
  if (!pending.pending) throw new CliError(`task ${taskId} waits for no input`, ExitCode.conflict);
  const question: InputQuestion = pending.request;
  let fields: AnswerFields;
  if (answerJson !== undefined) fields = parseAnswer(answerJson);
  else if (!process.stdin.isTTY) throw new CliError('no terminal to ask in: pass the answer as JSON', ExitCode.usage);
  else {
    try {
      fields = await answerInteractively(question);
    } catch (err) {
      if (err instanceof PromptInterrupted) return ExitCode.interrupted;
      throw err;
    }
  }
  const result = await client.input.answer(taskId!, question, fields);
  if (ctx.opts.json) ctx.term.json(result);
  else ctx.term.print(`answered ${question.input_type} request ${question.request_id}: ${result.message}`);
  return ExitCode.completed;
}

function parseAnswer(text: string): AnswerFields {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as AnswerFields;
  } catch {
    // reported below
  }
  throw new CliError('the answer must be a JSON object of the answer fields, e.g. {"value":"blue"}', ExitCode.usage);
}
