/**
 * The CLI's exit codes (listed in `agent-run --help` and the package README), and the code an error maps to.
 */
import { AgentRunError } from '@agent-run/client';

export const ExitCode = {
  completed: 0,
  failed: 1,
  usage: 2,
  cancelled: 3,
  auth: 4,
  rateLimited: 5,
  notFound: 6,
  unreachable: 7,
  inputRequired: 8,
  conflict: 9,
  interrupted: 130,
} as const;

/** One line per code, for --help and the README. */
export const exitCodeHelp = `Exit codes:
  0    completed (or the command succeeded)
  1    the run failed, or another error
  2    usage error (unknown command or option, missing argument, no url/key/agent configured,
       or the service refused the request as invalid: 400/422)
  3    the run was cancelled
  4    authentication or permission error (401/403)
  5    rate limited (429 after the client's retries)
  6    not found (404)
  7    network error: the service is unreachable (after retries) or answered 5xx
  8    --json run stopped because the run asks for human input (answer with \`agent-run answer\`)
  9    conflict (409): nothing to cancel/pause/resume, or the run is no longer active
  130  interrupted (Ctrl-C): detached from the stream, the run goes on`;

/** An error the CLI raises itself, carrying its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The exit code for any error a command may throw. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof AgentRunError) {
    const s = err.status;
    if (s === 401 || s === 403) return ExitCode.auth;
    if (s === 429) return ExitCode.rateLimited;
    if (s === 404) return ExitCode.notFound;
    if (s === 409) return ExitCode.conflict;
    if (s === 400 || s === 422) return ExitCode.usage;
    // 0: no answer at all (connection refused or cut, after the client's retries).
    if (s === 0 || s >= 500) return ExitCode.unreachable;
    return ExitCode.failed;
  }
  if (isNetworkError(err)) return ExitCode.unreachable;
  return ExitCode.failed;
}

/** fetch's failures: a TypeError ("fetch failed") whose cause is the socket error. */
export function isNetworkError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'TypeError' && /fetch failed|network/i.test(err.message)) return true;
  const code = (err.cause as { code?: string } | undefined)?.code ?? (err as { code?: string }).code;
  return (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|UND_ERR_\w+)$/.test(code)
  );
}
