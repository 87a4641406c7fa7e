/**
 * The client a run was started from, for the runs list's `source` filter. `cli`, `sdk` and `console`
 * say so in the `X-Agent-Run-Client` header (a label the caller chooses, never a permission);
 * `mcp` and `ag-ui` are the api's own endpoints. Other API callers have none.
 */
export const runClients = ['cli', 'sdk', 'console', 'mcp', 'ag-ui'] as const;
export type RunClient = (typeof runClients)[number];

/** The request header the SDK, the CLI and the console send. */
export const RUN_CLIENT_HEADER = 'X-Agent-Run-Client';

/** What the header names, when it is one of the clients that send it. */
export function runClientFromHeader(value: string | undefined): RunClient | undefined {
  return value === 'cli' || value === 'sdk' || value === 'console' ? value : undefined;
}
