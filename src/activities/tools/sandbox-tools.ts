import { findAgent } from '../../db/agents.ts';
import { sandboxHostFor } from '../../sandbox/host.ts';
import { assertSandboxHere } from '../sandbox-lease.ts';
import type { OperationOptions } from '../../sandbox/sandbox.ts';
import { agentModelSettingsSchema, type AgentSandboxSettings } from '../../shared/agent-settings.ts';
import { implementTool, refuseGuests, type ToolContext } from './types.ts';

/**
 * The sandbox tools: the run's agent's persistent workspace in the run's org.
 * A run can only ever reach its own (org, agent) sandbox: both come from the
 * run, never from the model's arguments. The workspace is shared by the agent's
 * users, so a guest's run gets none of it.
 */
async function sandboxOf(ctx: ToolContext) {
  await refuseGuests(ctx, "The agent's shared workspace");
  await assertSandboxHere(ctx.deps, ctx.orgId, ctx.agentId);
  return sandboxHostFor(ctx.deps).sandbox(ctx.orgId, ctx.agentId);
}

function operation(ctx: ToolContext): OperationOptions {
  return {
    signal: ctx.signal,
    heartbeat: () => ctx.heartbeat(),
    // Shown once, when this call had to create or restore the workspace on this host.
    onStatus: (status) => ctx.emit([{ type: 'CUSTOM', name: 'SYSTEM_STATUS', data: { ...status } }], 'sandbox-status'),
  };
}

export const readFile = implementTool<{ path: string }>('read_file', async (input, ctx) =>
  (await sandboxOf(ctx)).readFile(input.path, operation(ctx)),
);

export const writeFile = implementTool<{ path: string; content: string }>('write_file', async (input, ctx) =>
  (await sandboxOf(ctx)).writeFile(input.path, input.content, operation(ctx)),
);

export const listFiles = implementTool<{ path?: string; recursive?: boolean }>('list_files', async (input, ctx) =>
  (await sandboxOf(ctx)).listFiles(input.path ?? '.', { recursive: input.recursive }, operation(ctx)),
);

export const runCommand = implementTool<{ command: string; timeout_seconds?: number }>(
  'run_command',
  async (input, ctx) =>
    (await sandboxOf(ctx)).runCommand(input.command, {
      ...operation(ctx),
      timeoutMs: input.timeout_seconds === undefined ? undefined : input.timeout_seconds * 1000,
      network: (await sandboxSettings(ctx)).network ?? false,
    }),
);

/** The agent's sandbox settings as they are now (a change applies to the next command). */
async function sandboxSettings(ctx: ToolContext): Promise<AgentSandboxSettings> {
  const agent = await findAgent(ctx.deps.db, ctx.agentId);
  const parsed = agentModelSettingsSchema.safeParse(agent?.modelSettings ?? {});
  return (parsed.success && parsed.data.sandbox) || {};
}

export const sandboxToolImplementations = [readFile, writeFile, listFiles, runCommand];
