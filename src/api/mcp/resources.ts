import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { isDomainError } from '../../shared/domain-error.ts';
import type { ApiDeps } from '../deps.ts';
import { runEventsFor, runStatusFor, taskMessagesFor } from '../services/agent-reads.ts';
import { EVENTS_PAGE_DEFAULT } from '../schemas/events.ts';
import { callerOf } from './agent-tools.ts';

/** The spec's "resource not found" error code (the SDK has no constant for it). */
const RESOURCE_NOT_FOUND = -32002;

export const RESOURCE_TEMPLATES = {
  run: 'agent-run://runs/{run_id}',
  events: 'agent-run://runs/{run_id}/events{?after}',
  messages: 'agent-run://tasks/{task_id}/messages',
};

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? '';

/** The JSON `body` as the one content of resource `uri`; a run or task the caller may not see is "not found". */
async function read(uri: URL, body: () => Promise<unknown>): Promise<ReadResourceResult> {
  try {
    const json = JSON.stringify(await body(), null, 2);
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: json }] };
  } catch (err) {
    if (isDomainError(err, 'not_found')) throw new McpError(RESOURCE_NOT_FOUND, err.message, { uri: uri.href });
    throw err;
  }
}

/**
 * The spec's read operations as resource templates: a run's status, a page of its event history,
 * a task's messages. Each read runs the HTTP routes' use cases with the request's caller.
 */
export function serveReadResources(server: McpServer, deps: ApiDeps): void {
  const noList = { list: undefined };
  server.registerResource(
    'run',
    new ResourceTemplate(RESOURCE_TEMPLATES.run, noList),
    {
      title: 'Run status',
      description: 'A run’s status, mode, usage, error and the question it waits on (run_id from a tool result)',
      mimeType: 'application/json',
    },
    (uri, vars, extra) => read(uri, () => runStatusFor(deps, callerOf(extra), one(vars.run_id))),
  );
  server.registerResource(
    'run-events',
    new ResourceTemplate(RESOURCE_TEMPLATES.events, noList),
    {
      title: 'Run event history',
      description:
        `Up to ${EVENTS_PAGE_DEFAULT} of a run’s stored events after seq \`after\` (0: from its start); ` +
        '`next_after` is the next page’s `after`, null at the end of a finished run',
      mimeType: 'application/json',
    },
    (uri, vars, extra) => {
      const after = Number(one(vars.after) || '0');
      if (!Number.isSafeInteger(after) || after < 0) {
        throw new McpError(-32602, '`after` must be a non-negative integer (an event seq)');
      }
      return read(uri, () => runEventsFor(deps, callerOf(extra), one(vars.run_id), after, EVENTS_PAGE_DEFAULT));
    },
  );
  server.registerResource(
    'task-messages',
    new ResourceTemplate(RESOURCE_TEMPLATES.messages, noList),
    {
      title: 'Task messages',
      description: 'A task’s conversation, oldest first (task_id from a tool result)',
      mimeType: 'application/json',
    },
    (uri, vars, extra) => read(uri, () => taskMessagesFor(deps, callerOf(extra), one(vars.task_id))),
  );
}
