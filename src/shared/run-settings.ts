import { agentModelSettingsSchema, type AgentModelSettings } from './agent-settings.ts';
import { DEFAULT_MAX_STEPS, type RunSettings } from './run-workflow-types.ts';
import { DEFAULT_TOOL_SERVER_TIMEOUT_SECONDS, type ToolServerOAuth, type ToolServerRef } from './tool-server-types.ts';
import type { ToolServerOAuthSettings } from './tool-server-settings.ts';
import { toolCatalog } from './tools/index.ts';
import { runCommandTool } from './tools/sandbox.ts';

/** The agent's list, plus run_command unless the agent turned its default gate off (`sandbox.run_command_approval: false`). */
function approvalRequiredTools(s: AgentModelSettings): string[] {
  const tools = new Set(s.approval_required_tools ?? []);
  if (s.sandbox?.run_command_approval !== false) tools.add(runCommandTool.name);
  return [...tools];
}

/**
 * A run's policy from the agent's stored model settings, fixed when the run starts (changes
 * apply to later runs). Settings that no longer parse count as none: the defaults apply.
 */
export function runSettingsFrom(modelSettings: unknown): RunSettings {
  const parsed = agentModelSettingsSchema.safeParse(modelSettings ?? {});
  const s = parsed.success ? parsed.data : {};
  const catalogSensitive = [...toolCatalog.values()].filter((t) => t.sensitive).map((t) => t.name);
  return {
    maxSteps: s.max_steps ?? DEFAULT_MAX_STEPS,
    approvalRequiredTools: approvalRequiredTools(s),
    sensitiveTools: [...new Set([...catalogSensitive, ...(s.sensitive_tools ?? [])])],
    requirePlanApproval: s.require_plan_approval ?? false,
    ...(s.tool_servers?.length ? { toolServers: s.tool_servers.map(toolServerRef) } : {}),
  };
}

/** A tool server of the settings as a run (or a connection test) uses it. */
export function toolServerRef(server: NonNullable<AgentModelSettings['tool_servers']>[number]): ToolServerRef {
  return {
    name: server.name,
    url: server.url,
    ...(server.headers ? { headers: server.headers } : {}),
    ...(server.allowed_tools ? { allowedTools: server.allowed_tools } : {}),
    timeoutSeconds: server.timeout_seconds ?? DEFAULT_TOOL_SERVER_TIMEOUT_SECONDS,
    ...(server.oauth ? { oauth: toolServerOAuth(server.oauth) } : {}),
  };
}

function toolServerOAuth(oauth: ToolServerOAuthSettings): ToolServerOAuth {
  const common = {
    ...(oauth.scope ? { scope: oauth.scope } : {}),
    ...(oauth.issuer ? { issuer: oauth.issuer } : {}),
  };
  if (oauth.grant === 'client_credentials')
    return {
      grant: oauth.grant,
      clientId: oauth.client_id,
      ...(oauth.client_secret ? { clientSecret: { secret: oauth.client_secret.secret } } : {}),
      ...(oauth.private_key
        ? { privateKey: { secret: oauth.private_key.secret, algorithm: oauth.signing_algorithm ?? 'RS256' } }
        : {}),
      ...common,
    };
  return {
    grant: oauth.grant,
    ...(oauth.client_id ? { clientId: oauth.client_id } : {}),
    ...(oauth.client_secret ? { clientSecret: { secret: oauth.client_secret.secret } } : {}),
    ...common,
    refreshToken: { secret: oauth.refresh_token.secret },
  };
}
