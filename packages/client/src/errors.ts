/** Errors of the client: one class per HTTP status the API documents, each carrying the response's `detail`. */

/** A refused request: `status` is the HTTP status (0 when no answer came), `detail` the body's `detail`. */
export class AgentRunError extends Error {
  override name = 'AgentRunError';
  constructor(
    message: string,
    readonly status: number,
    readonly detail: unknown,
    /** The `X-Request-Id` the api logged the failure under, when it sent one. */
    readonly requestId?: string,
  ) {
    super(message);
  }
}

export class BadRequestError extends AgentRunError {
  override name = 'BadRequestError';
}
export class AuthenticationError extends AgentRunError {
  override name = 'AuthenticationError';
}
export class PaymentRequiredError extends AgentRunError {
  override name = 'PaymentRequiredError';
}
export class PermissionError extends AgentRunError {
  override name = 'PermissionError';
}
export class NotFoundError extends AgentRunError {
  override name = 'NotFoundError';
}
export class ConflictError extends AgentRunError {
  override name = 'ConflictError';
}
export class ValidationError extends AgentRunError {
  override name = 'ValidationError';
}
export class RateLimitError extends AgentRunError {
  override name = 'RateLimitError';
  constructor(
    message: string,
    status: number,
    detail: unknown,
    requestId: string | undefined,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message, status, detail, requestId);
  }
}
/** 5xx after every retry. */
export class ServerError extends AgentRunError {
  override name = 'ServerError';
}
/** No answer at all (connection refused or cut) after every retry; `cause` is the fetch error. */
export class ConnectionError extends AgentRunError {
  override name = 'ConnectionError';
  constructor(message: string, cause: unknown) {
    super(message, 0, undefined);
    this.cause = cause;
  }
}
/** A stream ended without its terminal event and could not be resumed. */
export class StreamError extends AgentRunError {
  override name = 'StreamError';
}

const byStatus: Record<number, typeof AgentRunError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  422: ValidationError,
};

/** The error for a refused response; reads its body. */
export async function errorFromResponse(res: Response, what: string): Promise<AgentRunError> {
  const text = await res.text().catch(() => '');
  let detail: unknown = text;
  try {
    detail = (JSON.parse(text) as { detail?: unknown }).detail ?? detail;
  } catch {
    // not JSON: keep the text
  }
  const requestId = res.headers.get('x-request-id') ?? undefined;
  const message = `${what}: ${res.status} ${describeDetail(detail)}`;
  if (res.status === 429) return new RateLimitError(message, 429, detail, requestId, retryAfterSeconds(res));
  const Kind = byStatus[res.status] ?? (res.status >= 500 ? ServerError : AgentRunError);
  return new Kind(message, res.status, detail, requestId);
}

/** A `detail` as a line: the text, or each validation problem's message and where it is (`value must be a number (body.value)`). */
function describeDetail(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  const problems = Array.isArray(detail) ? (detail as { loc?: unknown; msg?: unknown }[]) : [];
  if (problems.length > 0 && problems.every((p) => typeof p?.msg === 'string' && Array.isArray(p.loc))) {
    return problems.map((p) => `${String(p.msg)} (${(p.loc as unknown[]).join('.')})`).join('; ');
  }
  return JSON.stringify(detail);
}

/** The `Retry-After` header in seconds (integer or HTTP date), if present. */
export function retryAfterSeconds(res: Response): number | undefined {
  const value = res.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}
