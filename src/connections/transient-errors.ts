import { ApplicationFailure } from '@temporalio/common';
import { failureTypes } from '../shared/run-workflow-types.ts';

/**
 * Failures of our own infrastructure (PostgreSQL or Temporal unreachable, a connection
 * cut mid-query, a pool exhausted) as opposed to failures of the request or the model.
 * They say nothing about the run: activities retry them with backoff for as long as it
 * takes, and the api answers 503 with Retry-After instead of 500.
 */
/** Socket failures of reaching any server (ours, or one an org named): worth another attempt. */
export const SOCKET_ERROR_CODES = [
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
] as const;

const TRANSIENT_CODES = new Set<string>([
  ...SOCKET_ERROR_CODES,
  // PostgreSQL: admin shutdown, crash shutdown, cannot connect now, connection exceptions, too many connections
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
  // Prisma: cannot reach the server, timed out, server closed the connection, pool timeout
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
]);

const TRANSIENT_MESSAGES = [
  /Connection terminated/i,
  /connection (?:is )?closed/i,
  /terminating connection/i,
  /Can't reach database server/i,
  /the database system is (?:starting up|shutting down|in recovery mode)/i,
  /Timed out fetching a new connection/i,
  /Client has encountered a connection error/i,
  /Connection refused/i,
];

/** gRPC status codes of a Temporal server that is down or overloaded: UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED. */
const TRANSIENT_GRPC = new Set([14, 4, 8]);

export function isInfrastructureError(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message, name } = e as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return true;
    if (typeof code === 'number' && name === 'ServiceError' && TRANSIENT_GRPC.has(code)) return true;
    if (typeof code === 'number' && TRANSIENT_GRPC.has(code) && 'details' in (e as object)) return true;
    if (typeof message === 'string' && TRANSIENT_MESSAGES.some((re) => re.test(message))) return true;
    const original = (e as { originalCode?: unknown; kind?: unknown }).originalCode;
    if (typeof original === 'string' && TRANSIENT_CODES.has(original)) return true;
  }
  return false;
}

/** A failure of our own store or engine met inside an activity: retried without limit, never blamed on the model or tool. */
export class InfrastructureUnavailable extends Error {
  override name = 'InfrastructureUnavailable';
  constructor(cause: unknown) {
    super(`infrastructure unavailable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/** Rethrows an infrastructure failure as InfrastructureUnavailable, anything else as it is. */
export function markInfrastructure(err: unknown): never {
  throw isInfrastructureError(err) ? new InfrastructureUnavailable(err) : err;
}

/**
 * The attempt policy of a model or tool call around its whole body: failures of our
 * infrastructure retry without limit; any other unexpected error gets `attempts` attempts
 * in all, then fails the call for good as `failureType`. ApplicationFailures pass as they are.
 */
export async function withAttemptLimit<T>(
  what: string,
  failureType: string,
  ctx: { attempt: number; attempts: number; cancelled: () => boolean },
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ApplicationFailure || ctx.cancelled()) throw err;
    const message = `${what} failed: ${(err as Error)?.message ?? String(err)}`;
    if (err instanceof InfrastructureUnavailable || isInfrastructureError(err))
      throw ApplicationFailure.retryable(message, failureTypes.infrastructure);
    if (ctx.attempt >= ctx.attempts)
      throw ApplicationFailure.nonRetryable(`${message} (attempt ${ctx.attempt} of ${ctx.attempts})`, failureType);
    throw err;
  }
}
