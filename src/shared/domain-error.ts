/**
 * How a use case refuses: the kind says what went wrong for the caller, the message is safe to show
 * them. Use cases know nothing of HTTP; the api's error handler (src/api/errors.ts) turns each kind
 * into its status code and headers, and the CLI prints the message.
 */
export type DomainErrorKind =
  | 'invalid'
  | 'invalid_field'
  | 'unauthenticated'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'unavailable';

/** Where in the caller's input a value is wrong (`['body', 'value']`, `['header', 'idempotency-key']`). */
export interface FieldProblem {
  loc: (string | number)[];
  type: string;
}

export class DomainError extends Error {
  override name = 'DomainError';
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** For `rate_limited` and `unavailable`: when the caller may try again. */
    readonly retryAfterSeconds?: number,
    /** For `invalid_field`: which value is wrong. */
    readonly field?: FieldProblem,
  ) {
    super(message);
  }
}

export const invalid = (message: string) => new DomainError('invalid', message);
export const unauthenticated = (message: string) => new DomainError('unauthenticated', message);
export const paymentRequired = (message: string) => new DomainError('payment_required', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const notFound = (message: string) => new DomainError('not_found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const rateLimited = (message: string, retryAfterSeconds: number) =>
  new DomainError('rate_limited', message, retryAfterSeconds);
export const unavailable = (message: string, retryAfterSeconds: number) =>
  new DomainError('unavailable', message, retryAfterSeconds);
export const invalidField = (loc: (string | number)[], message: string, type = 'value_error') =>
  new DomainError('invalid_field', message, undefined, { loc, type });

export const isDomainError = (err: unknown, kind: DomainErrorKind): err is DomainError =>
  err instanceof DomainError && err.kind === kind;
