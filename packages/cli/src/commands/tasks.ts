/** `tasks ls|show|rm` and `events RUN_ID`: tables by default, JSON with --json. */
import { runStatusLabel, type RunEventRecord } from '@agent-run/client';
import type { Command } from 'commander';
import { requireAgent } from '../config.ts';
import { action, type Context } from '../context.ts';
import { table } from '../terminal.ts';

const s = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** Adds tasks and events to `program`. */
export function addTaskCommands(program: Command): void {
  const tasks = program.command('tasks').description("the agent's tasks (conversations) you can see");
  tasks
    .command('ls')
    .description('list tasks, newest first')
    .option('--limit <n>', 'how many (1-200)', '50')
    .option('--json', 'print the raw JSON')
    .action(action(list));
  tasks
    .command('show')
    .description('show a task and its runs')
    .argument('<task_id>')
    .option('--json', 'print the raw JSON')
    .action(action(show));
  tasks
    .command('rm')
    .description('delete a task with its runs, messages and events')
    .argument('<task_id>')
    .option('--json', 'print the raw JSON')
    .action(action(remove));

  program
    .command('events')
    .description("a run's stored events so far, every page (--json: one record per line)")
    .argument('<run_id>')
    .option('--json', 'print each event record as one JSON line (NDJSON)')
    .action(action(events));
}

async function list(ctx: Context): Promise<void> {
  requireAgent(ctx.settings);
  const page = await ctx.client().tasks.list({ limit: Number(ctx.opts.limit) });
  if (ctx.opts.json) return ctx.term.json(page);
  ctx.term.print(
    table(
      ['TASK', 'STATUS', 'LATEST RUN', 'UPDATED', 'TITLE'],
      page.tasks.map((t) => [
        t.id,
        t.latest_run_status ? runStatusLabel(t.latest_run_status) : 'No run yet',
        s(t.latest_run_id),
        t.updated_at,
        t.title,
      ]),
    ),
  );
}

async function show(ctx: Context, [taskId]: string[]): Promise<void> {
  requireAgent(ctx.settings);
  const task = await ctx.client().tasks.get(taskId!);
  if (ctx.opts.json) return ctx.term.json(task);
  const fields = [
    'id',
    'title',
    'run_status',
    'agent_id',
    'user_id',
    'org_id',
    'message_count',
    'latest_run_id',
    'created_at',
    'updated_at',
  ] as const;
  ctx.term.print(fields.map((f) => `${`${f}:`.padEnd(15)}${s(task[f])}`).join('\n'));
  if (task.runs.length)
    ctx.term.print(
      `\n${table(
        ['RUN', 'STATUS', 'MODE', 'TOKENS', 'CREDITS', 'CREATED', 'FINISHED'],
        task.runs.map((r) => [
          r.id,
          runStatusLabel(r.status),
          r.mode,
          String(r.input_tokens + r.output_tokens),
          String(r.credits_used),
          r.created_at,
          s(r.finished_at),
        ]),
      )}`,
    );
}

async function remove(ctx: Context, [taskId]: string[]): Promise<void> {
  requireAgent(ctx.settings);
  const result = await ctx.client().tasks.delete(taskId!);
  if (ctx.opts.json) ctx.term.json(result);
  else ctx.term.print(`deleted task ${taskId}`);
}

async function events(ctx: Context, [runId]: string[]): Promise<void> {
  requireAgent(ctx.settings);
  const rows: string[][] = [];
  for await (const record of ctx.client().runs.events(runId!, { limit: 1000, follow: false })) {
    if (ctx.opts.json) ctx.term.json(record);
    else rows.push([record.id, record.event_name || record.event_type, record.created_at, summary(record.payload)]);
  }
  if (!ctx.opts.json) ctx.term.print(table(['ID', 'EVENT', 'CREATED', 'DETAIL'], rows, 80));
}

/** The informative part of an event's payload, in a few words. */
function summary(payload: RunEventRecord['payload']): string {
  const p = payload as Record<string, unknown>;
  return s(
    p.delta ??
      p.content ??
      p.tool_call_name ??
      p.message ??
      (p.data as { status?: unknown } | undefined)?.status ??
      p.data ??
      p.result,
  );
}
