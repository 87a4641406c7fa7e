/**
 * One readable line per stored event, for the run inspector. Tool calls read the same whether the
 * tool is built in or a tool server's (`<server>__<tool>`); tool-server status says what happened.
 */
export interface EventLike {
  type: string;
  name?: string;
  tool_call_id?: string;
  tool_call_name?: string;
  data?: Record<string, unknown>;
  [key: string]: unknown;
}

/** `server__tool` → the server and its own tool name; undefined for a built-in tool. */
export function serverToolParts(name: string): { server: string; tool: string } | undefined {
  const at = name.indexOf('__');
  return at > 0 ? { server: name.slice(0, at), tool: name.slice(at + 2) } : undefined;
}

/** How a tool is named in a line: `everything__echo (tool server everything)`, or just `save_memory`. */
export function toolLabel(name: string): string {
  const parts = serverToolParts(name);
  return parts ? `${name} (tool server ${parts.server})` : name;
}

/** A SYSTEM_STATUS event about a tool server (or a tool call's progress and retries), in words; undefined for others. */
export function systemStatusText(data: Record<string, unknown>): string | undefined {
  const server = String(data.server ?? '');
  const tool = typeof data.tool === 'string' ? toolLabel(data.tool) : 'tool';
  switch (data.status) {
    case 'tool_server_connecting':
      return `Tool server ${server}: connecting…`;
    case 'tool_server_ready': {
      const count = Number(data.tool_count ?? 0);
      return `Tool server ${server}: ready, ${count} ${count === 1 ? 'tool' : 'tools'}`;
    }
    case 'tool_server_failed':
      return `Tool server ${server}: failed: ${String(data.reason ?? 'no reason given')}. The run goes on without its tools.`;
    case 'tool_server_retrying':
      return `Tool server ${server}: retrying (attempt ${String(data.attempt ?? 2)}) after: ${String(data.reason ?? '')}`;
    case 'tool_progress': {
      const total = data.total === undefined ? '' : ` of ${String(data.total)}`;
      const message = data.message ? `: ${String(data.message)}` : '';
      return `Progress of ${tool}: ${String(data.progress)}${total}${message}`;
    }
    case 'retrying':
      return data.operation === 'tool_call'
        ? `Retrying ${tool} (attempt ${String(data.attempt)})`
        : `Retrying ${String(data.operation ?? 'a step')} (attempt ${String(data.attempt)})`;
    default:
      return undefined;
  }
}

/** The line for `event`; `toolNames` maps tool call ids to the names their TOOL_CALL_START gave. */
export function eventSummary(event: EventLike, toolNames: Map<string, string>): string {
  const callName = () => toolLabel(toolNames.get(String(event.tool_call_id)) ?? String(event.tool_call_id));
  switch (event.type) {
    case 'TOOL_CALL_START':
      return `Tool call ${toolLabel(String(event.tool_call_name))}`;
    case 'TOOL_CALL_ARGS':
      return `Arguments of ${callName()}: ${clip(String(event.delta ?? ''))}`;
    case 'TOOL_CALL_END':
      return `Called ${callName()}`;
    case 'TOOL_CALL_RESULT':
      return `Result of ${callName()}: ${clip(String(event.content ?? ''))}`;
    case 'CUSTOM':
      if (event.name === 'SYSTEM_STATUS' && event.data) return systemStatusText(event.data) ?? '';
      return '';
    default:
      return '';
  }
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
