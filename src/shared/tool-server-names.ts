/**
 * Names of tool-server tools: pure string rules shared by settings, workflows and activities
 * (no zod here, so workflow code can import it without loading schemas).
 */

/** A tool server's name in an agent's settings; with no `__` and no trailing `_`, the first `__` of a tool's name ends it. */
export const TOOL_SERVER_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
export const isToolServerName = (name: string) => TOOL_SERVER_NAME.test(name) && !/__|_$/.test(name);

/** Between the server's name and its tool's in the name the model sees: `linear__create_issue`. */
export const SERVER_TOOL_SEPARATOR = '__';

/** A tool's own name must fit what model providers accept for a function name (64 characters with the prefix). */
const OFFERABLE_TOOL_NAME = /^[A-Za-z0-9_-]+$/;
const MAX_OFFERED_NAME = 64;

/** The name a server's tool is offered to the model under, or undefined when no provider would accept it. */
export function serverToolName(server: string, tool: string): string | undefined {
  const name = `${server}${SERVER_TOOL_SEPARATOR}${tool}`;
  return OFFERABLE_TOOL_NAME.test(tool) && name.length <= MAX_OFFERED_NAME ? name : undefined;
}

/**
 * Whether a tool is named by a policy list (`approval_required_tools`, `sensitive_tools`): its exact
 * name, or `<server>__*` for every tool of a server. Built-in names hold no `__`, so for them this is `includes`.
 */
export function policyNames(list: readonly string[], toolName: string): boolean {
  if (list.includes(toolName)) return true;
  const at = toolName.indexOf(SERVER_TOOL_SEPARATOR);
  return at > 0 && list.includes(`${toolName.slice(0, at)}${SERVER_TOOL_SEPARATOR}*`);
}
