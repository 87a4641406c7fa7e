/** `runs`: the runs you may see across agents and tasks, newest first, with the API's filters. */
import { RUN_STATUS_LABELS, runStatusLabel, type RunListStatus } from '@agent-run/client';
import type { Command } from 'commander';
import { action, optString, type Context } from '../context.ts';
import { table } from '../terminal.ts';

/** Adds runs to `program`. */
export function addRunListCommand(program: Command): void {
  program
    .command('runs')
    .description('list runs across agents and tasks, newest first')
    .option(
      '--status <status>',
      `${Object.entries(RUN_STATUS_LABELS)
        .map(([status, label]) => `${status} (${label})`)
        .join(', ')}; repeat or comma-separate`,
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--agent-id <id>', "only this agent's runs")
    .option('--source <source>', 'api, widget, flow, or a flow name')
    .option('--user <user_id>', 'only runs of tasks this user started')
    .option('--since <time>', 'only runs created at or after this ISO time')
    .option('--until <time>', 'only runs created before this ISO time')
    .option('--limit <n>', 'how many (1-200)', '50')
    .option('--cursor <cursor>', 'continue after a previous page (its next_cursor)')
    .option('--json', 'print the raw JSON')
    .action(action(list));
}

async function list(ctx: Context): Promise<void> {
  const statuses = (ctx.opts.status as string[] | undefined)?.flatMap((s) => s.split(',')) as
    RunListStatus[] | undefined;
  const page = await ctx.client().runs.list({
    status: statuses,
    agent_id: optString(ctx.opts.agentId),
    source: optString(ctx.opts.source),
    user_id: optString(ctx.opts.user),
    since: optString(ctx.opts.since),
    until: optString(ctx.opts.until),
    limit: Number(ctx.opts.limit),
    cursor: optString(ctx.opts.cursor),
  });
  if (ctx.opts.json) return ctx.term.json(page);
  ctx.term.print(
    table(
      ['RUN', 'STATUS', 'AGENT', 'SOURCE', 'USER', 'STARTED', 'TOKENS', 'TASK'],
      page.runs.map((r) => [
        r.run_id,
        r.needs_you ? `${runStatusLabel('needs_you')} · ${runStatusLabel(r.status)}` : runStatusLabel(r.status),
        r.agent_name,
        r.source.flow_name ? `flow:${r.source.flow_name}` : r.source.kind,
        r.user.email,
        r.started_at,
        String(r.usage.input_tokens + r.usage.output_tokens),
        r.task_title,
      ]),
    ),
  );
  if (page.next_cursor) ctx.term.print(`more: agent-run runs --cursor ${page.next_cursor}`);
}
