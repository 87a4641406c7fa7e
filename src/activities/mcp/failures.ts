import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  OAuthError,
  ServerError,
  TemporarilyUnavailableError,
  TooManyRequestsError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { SOCKET_ERROR_CODES } from '../../connections/transient-errors.ts';
import { RefusedTargetError } from '../../outbound/address-guard.ts';

/** Socket and undici failures of reaching a server: worth another attempt. */
const NETWORK_CODES = new Set<string>([
  ...SOCKET_ERROR_CODES,
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * A failure of getting the request to the server and its answer back (refused or reset
 * connections, 5xx, timeouts): retried. Anything else (a 4xx, an MCP error the server
 * answered, an address the guard refused) would fail the same way again.
 */
export function isTransportFailure(err: unknown): boolean {
  if (refusalIn(err)) return false;
  if (err instanceof StreamableHTTPError || err instanceof SseError)
    return err.code === undefined || err.code >= 500 || err.code === 408 || err.code === 429;
  if (err instanceof McpError) return err.code === ErrorCode.RequestTimeout || err.code === ErrorCode.ConnectionClosed;
  // The authorization server's own trouble (its 5xx answers are server_error); a refused client is not retried.
  if (err instanceof OAuthError)
    return (
      err instanceof ServerError || err instanceof TemporarilyUnavailableError || err instanceof TooManyRequestsError
    );
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (e instanceof TypeError && message === 'fetch failed') return true;
  }
  return false;
}

/** One line saying why, for the run's events and the model: never a stack or a header value. */
export function describeServerFailure(err: unknown): string {
  const refused = refusalIn(err);
  if (refused) return refused.message;
  const codes: string[] = [];
  if ((err instanceof StreamableHTTPError || err instanceof SseError) && err.code !== undefined)
    codes.push(`HTTP ${err.code}`);
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const { code } = e as { code?: unknown };
    if (typeof code === 'string' && !codes.includes(code)) codes.push(code);
  }
  let message = err instanceof Error ? err.message : String(err);
  if (err instanceof OAuthError) message = `OAuth ${err.errorCode}${message ? `: ${message}` : ''}`;
  const { issues } = err as { issues?: { path: PropertyKey[]; message: string }[] };
  // A document the SDK could not parse (metadata, a token answer): its zod issues, not their JSON's first line.
  if (err instanceof Error && err.name === 'ZodError' && Array.isArray(issues))
    message = `unexpected answer: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
  const line = (message.split('\n')[0] ?? '').slice(0, 300);
  return codes.length ? `${line} (${codes.join(', ')})` : line;
}

/** The guard's refusal, thrown as it is or (by fetch) as the cause of a network failure. */
function refusalIn(err: unknown): RefusedTargetError | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 6; e = (e as { cause?: unknown }).cause, depth++)
    if (e instanceof RefusedTargetError) return e;
  return undefined;
}
