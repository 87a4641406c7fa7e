import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { AdminError } from '../../src/admin/errors.ts';
import { errorHandler } from '../../src/api/errors.ts';
import {
  conflict,
  forbidden,
  invalid,
  invalidField,
  notFound,
  paymentRequired,
  rateLimited,
  unauthenticated,
  unavailable,
} from '../../src/shared/domain-error.ts';

/** What the api's error handler answers for `err`: status, headers and body. */
function answerTo(err: unknown) {
  const answer = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
  const res = {
    headersSent: false,
    set(headers: Record<string, string>) {
      Object.assign(answer.headers, headers);
      return this;
    },
    status(code: number) {
      answer.status = code;
      return this;
    },
    json(body: unknown) {
      answer.body = body;
      return this;
    },
  } as unknown as Response;
  errorHandler(err, { id: 'req_1' } as unknown as Request, res, () => undefined);
  return answer;
}

describe('the api answers each kind of domain error', () => {
  it.each([
    ['invalid', invalid('bad'), 400, {}],
    ['unauthenticated', unauthenticated('who?'), 401, { 'WWW-Authenticate': 'Bearer' }],
    ['payment_required', paymentRequired('no credits'), 402, {}],
    ['forbidden', forbidden('no'), 403, {}],
    ['not_found', notFound('gone'), 404, {}],
    ['conflict', conflict('busy'), 409, {}],
    ['rate_limited', rateLimited('slow down', 7), 429, { 'Retry-After': '7' }],
    ['unavailable', unavailable('later', 5), 503, { 'Retry-After': '5' }],
  ])('%s', (_kind, err, status, headers) => {
    const answer = answerTo(err);
    expect(answer).toEqual({ status, headers, body: { detail: err.message } });
  });

  it('invalid_field: a 422 in the validation format, at the field it names', () => {
    expect(answerTo(invalidField(['header', 'idempotency-key'], 'used', 'idempotency_key_reused'))).toEqual({
      status: 422,
      headers: {},
      body: { detail: [{ loc: ['header', 'idempotency-key'], msg: 'used', type: 'idempotency_key_reused' }] },
    });
    expect(answerTo(invalidField(['body'], 'not a number')).body).toEqual({
      detail: [{ loc: ['body'], msg: 'not a number', type: 'value_error' }],
    });
  });

  it("an admin operation's refusal, by its kind", () => {
    expect(answerTo(new AdminError('no such user')).status).toBe(400);
    expect(answerTo(new AdminError('owners only', 'forbidden')).status).toBe(403);
    expect(answerTo(new AdminError('no such secret', 'not_found'))).toMatchObject({
      status: 404,
      body: { detail: 'no such secret' },
    });
    expect(answerTo(new AdminError('kind differs', 'conflict')).status).toBe(409);
  });

  it('anything else is a 500 that names only the request id', () => {
    expect(answerTo(new Error('secret internals'))).toEqual({
      status: 500,
      headers: {},
      body: { detail: 'Internal server error (request id req_1)' },
    });
  });
});
