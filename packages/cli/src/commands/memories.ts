/** `memories [AGENT_ID]`: what an agent saved to its long-term memory, newest first. */
import type { Command } from 'commander';
import { requireAgent } from '../config.ts';
import { action, type Context } from '../context.ts';
import { table } from '../terminal.ts';

/** Adds memories to `program`. */
export function addMemoryCommands(program: Command): void {
  program
    .command('memories')
    .description("an agent's long-term memories (default: the configured agent)")
    .argument('[agent_id]')
    .option('--json', 'print the raw JSON')
    .action(action(memories));
}

async function memories(ctx: Context, [agentId]: string[]): Promise<void> {
  const agent = agentId ?? requireAgent(ctx.settings);
  const page = await ctx.client().memories.list(agent);
  if (ctx.opts.json) return ctx.term.json(page);
  ctx.term.print(
    table(
      ['MEMORY', 'CREATED', 'TAGS', 'CONTENT'],
      page.memories.map((m) => [m.id, m.created_at, m.tags.join(','), m.content]),
      80,
    ),
  );
}
