/** `approvals [ls]`, `approvals approve ID`, `approvals reject ID --feedback TEXT`: the org's approval inbox. */
import type { ApprovalStatus } from '@agent-run/client';
import type { Command } from 'commander';
import { action, optString, type Context } from '../context.ts';
import { table } from '../terminal.ts';

const s = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** Adds approvals to `program`. */
export function addApprovalCommands(program: Command): void {
  const approvals = program.command('approvals').description("the org's approval inbox (plan and tool-call gates)");
  approvals
    .command('ls', { isDefault: true })
    .description('list approvals (pending by default)')
    .option('--status <status>', 'pending, approved, rejected…', 'pending')
    .option('--json', 'print the raw JSON')
    .action(action(list));
  approvals
    .command('approve')
    .description('approve a gate')
    .argument('<approval_id>')
    .option('--feedback <text>', 'a note for the agent')
    .option('--json', 'print the raw JSON')
    .action(action((ctx, args) => respond(ctx, args, 'approve')));
  approvals
    .command('reject')
    .description('reject a gate (the agent is told, with your feedback)')
    .argument('<approval_id>')
    .option('--feedback <text>', 'why, for the agent')
    .option('--json', 'print the raw JSON')
    .action(action((ctx, args) => respond(ctx, args, 'reject')));
}

async function list(ctx: Context): Promise<void> {
  const page = await ctx.client().approvals.list({ status: optString(ctx.opts.status) as ApprovalStatus | undefined });
  if (ctx.opts.json) return ctx.term.json(page);
  ctx.term.print(
    table(
      ['APPROVAL', 'KIND', 'STATUS', 'TOOL', 'AGENT', 'STARTED BY', 'RUN', 'CREATED', 'PROMPT'],
      page.approvals.map((a) => [
        a.id,
        a.kind,
        a.status,
        s(a.tool_name),
        a.agent_name,
        a.started_by.visitor ? 'widget visitor' : a.started_by.email,
        a.run_id,
        a.created_at,
        a.prompt,
      ]),
    ),
  );
}

async function respond(ctx: Context, [approvalId]: string[], decision: 'approve' | 'reject'): Promise<void> {
  const result = await ctx
    .client()
    .approvals.respond(approvalId!, { decision, feedback: optString(ctx.opts.feedback) });
  if (ctx.opts.json) ctx.term.json(result);
  else ctx.term.print(`${decision === 'approve' ? 'approved' : 'rejected'} ${approvalId}: ${result.message}`);
}
