import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ToolSpec } from '../activities/models/provider.ts';
import type { PlanStepInput } from '../activities/plan-step.ts';
import type { ToolCall, ToolOutcome } from '../shared/run-workflow-types.ts';
import type { ServerTool } from '../shared/tool-server-types.ts';
import { toolServerCallOptions, toolServerListOptions } from './activity-options.ts';
import type { RunState } from './run-state.ts';

const { listToolServerTools } = proxyActivities<Activities>(toolServerListOptions);

/** Lists the tools of the agent's MCP servers once, before the run's first step; a run without servers issues nothing. */
export async function connectToolServers(state: RunState): Promise<void> {
  const servers = state.settings.toolServers;
  if (!servers?.length) return;
  state.serverTools = await listToolServerTools({ runId: state.input.runId, orgId: state.input.orgId, servers });
}

export function findServerTool(state: RunState, name: string): ServerTool | undefined {
  return state.serverTools?.tools.find((t) => t.name === name);
}

/** What a model step adds to the catalog: the servers' tools, and a note naming the servers that are down. */
export function serverToolsForModel(state: RunState): { serverTools?: ToolSpec[]; toolNote?: string } {
  const listing = state.serverTools;
  if (!listing) return {};
  const down = listing.unavailable.map((u) => `${u.server} (${u.reason})`);
  return {
    serverTools: listing.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    ...(down.length
      ? {
          toolNote: `These tool servers could not be reached when this run started, so their tools are unavailable in it: ${down.join('; ')}.`,
        }
      : {}),
  };
}

/** What the planning step is told of the servers' tools: names and descriptions, so a plan can name them. */
export function serverToolsForPlanner(state: RunState): Pick<PlanStepInput, 'serverTools' | 'toolNote'> {
  const { serverTools, toolNote } = serverToolsForModel(state);
  if (!serverTools) return {};
  return {
    serverTools: serverTools.map(({ name, description }) => ({ name, description })),
    ...(toolNote ? { toolNote } : {}),
  };
}

/** One call of a server's tool: an activity as long as the server's timeout allows. */
export function callServerTool(state: RunState, call: ToolCall, tool: ServerTool): Promise<ToolOutcome> {
  const server = state.settings.toolServers!.find((s) => s.name === tool.server)!;
  const { callServerTool: runServerToolCall } = proxyActivities<Activities>(
    toolServerCallOptions(server.timeoutSeconds),
  );
  return runServerToolCall({ ...state.toolCallInput(call), server, tool: tool.tool });
}
