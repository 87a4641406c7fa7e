/** `cancel|pause|resume TASK_ID` (run control) and `comment TASK_ID RUN_ID TEXT` (steering). */
import type { Command } from 'commander';
import { requireAgent } from '../config.ts';
import { action, type Context } from '../context.ts';

/** Adds cancel, pause, resume and comment to `program`. */
export function addControlCommands(program: Command): void {
  const verbs = {
    cancel: 'cancel the active run of a task',
    pause: 'pause the active run at its next safe point',
    resume: 'resume a paused run',
  } as const;
  for (const [verb, description] of Object.entries(verbs) as [keyof typeof verbs, string][]) {
    program
      .command(verb)
      .description(description)
      .argument('<task_id>')
      .option('--json', 'print the raw JSON')
      .action(action((ctx, args) => control(ctx, args, verb)));
  }
  program
    .command('comment')
    .description('steer an active run with a comment (joins the conversation before its next model step)')
    .argument('<task_id>')
    .argument('<run_id>')
    .argument('<text>', '1-2000 characters')
    .option('--json', 'print the raw JSON')
    .action(action(comment));
}

async function control(ctx: Context, [taskId]: string[], verb: 'cancel' | 'pause' | 'resume'): Promise<void> {
  requireAgent(ctx.settings);
  const result = await ctx.client().tasks[verb](taskId!);
  if (ctx.opts.json) ctx.term.json(result);
  else ctx.term.print(`${result.message} (run ${result.run_id})`);
}

async function comment(ctx: Context, [taskId, runId, text]: string[]): Promise<void> {
  requireAgent(ctx.settings);
  const result = await ctx.client().tasks.comment(taskId!, runId!, text!);
  if (ctx.opts.json) ctx.term.json(result);
  else ctx.term.print(`comment sent to run ${runId}`);
}
