/**
 * What an approval asks, in words, with the arguments that matter first: the command of run_command, the
 * path and the start of the content of write_file, a tool server's tool (`server__tool`) and its arguments.
 */
import { serverToolParts } from './event-summary.ts';

export interface ActionField {
  name: string;
  value: string;
  /** Shown as a block of code (a command, file content) rather than inline. */
  block?: boolean;
}

export interface ActionSummary {
  title: string;
  fields: ActionField[];
}

const PREVIEW_LINES = 12;
const PREVIEW_CHARS = 800;
const VALUE_CHARS = 300;

const text = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));
const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}…` : s);

/** Every argument not already shown, as `name: value` (long values cut). */
function rest(args: Record<string, unknown>, shown: string[]): ActionField[] {
  return Object.entries(args)
    .filter(([name]) => !shown.includes(name))
    .map(([name, value]) => ({ name, value: clip(text(value), VALUE_CHARS) }));
}

/** The first lines of a file's content, and what was left out. */
function preview(content: string): string {
  const lines = content.split('\n');
  let shown = lines.slice(0, PREVIEW_LINES).join('\n');
  if (shown.length > PREVIEW_CHARS) shown = shown.slice(0, PREVIEW_CHARS);
  const more = content.length - shown.length;
  return more > 0 ? `${shown}\n… (${more} more characters, ${lines.length} lines in all)` : shown;
}

/** A tool call waiting for approval, described. */
export function describeAction(toolName: string, args: Record<string, unknown>): ActionSummary {
  switch (toolName) {
    case 'run_command':
      return {
        title: 'Run a command in the sandbox',
        fields: [
          { name: 'Command', value: text(args.command ?? ''), block: true },
          ...(args.timeout_seconds === undefined
            ? []
            : [{ name: 'Time limit', value: `${text(args.timeout_seconds)} s` }]),
          ...rest(args, ['command', 'timeout_seconds']),
        ],
      };
    case 'write_file': {
      const content = text(args.content ?? '');
      return {
        title: 'Write a file in the sandbox',
        fields: [
          { name: 'Path', value: text(args.path ?? '') },
          { name: 'Content', value: preview(content), block: true },
          ...rest(args, ['path', 'content']),
        ],
      };
    }
    default: {
      const parts = serverToolParts(toolName);
      return {
        title: parts ? `Call ${parts.tool} on tool server ${parts.server}` : `Call ${toolName}`,
        fields: rest(args, []),
      };
    }
  }
}

/** The steps of a plan approval (strings, or `{title}` objects). */
export function planSteps(details: Record<string, unknown>): string[] {
  const plan = details.plan as { steps?: unknown[] } | undefined;
  return (plan?.steps ?? []).map((s) => (typeof s === 'string' ? s : text((s as { title?: unknown }).title ?? s)));
}

/** The action of an action approval's details: `{action: {tool_name, arguments}}`. */
export function approvalAction(
  toolName: string | null,
  details: Record<string, unknown>,
): { tool: string; args: Record<string, unknown> } {
  const action = details.action as { tool_name?: string; arguments?: unknown } | undefined;
  const args = action?.arguments;
  return {
    tool: toolName ?? action?.tool_name ?? 'a tool',
    args: args && typeof args === 'object' ? (args as Record<string, unknown>) : {},
  };
}
