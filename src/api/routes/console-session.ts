/**
 * The web console's sign-in. The console never keeps the API key: signing in exchanges it once and
 * sets an HttpOnly, SameSite=Strict cookie (`ars_console_session`, sent only to these paths) that
 * renews the hour-long token until the working day's session ends (CONSOLE_SESSION_SECONDS) or the
 * key is revoked. Page scripts see tokens, never the key nor the session.
 */
import type { Request, Response } from 'express';
import { parse as parseCookies } from 'cookie';
import { CONSOLE_SESSION_SECONDS, InvalidTokenError } from '../../auth/tokens.ts';
import type { ApiDeps } from '../deps.ts';
import { forbidden, unauthorized } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { isDomainError } from '../../shared/domain-error.ts';
import { holderOfKey, tokenFor, tokenForSession } from '../services/key-exchange.ts';
import { exchangeRefusedResponse, exchangeRequestSchema, exchangeResponseSchema } from './auth.ts';

export const CONSOLE_SESSION_COOKIE = 'ars_console_session';
const COOKIE_PATH = '/api/v1/auth/console';

/**
 * Browsers say where a request comes from (Sec-Fetch-Site); only the console's own pages may use the
 * session. A client that sends no such header (curl, the SDK) has no session cookie to send either.
 */
function requireSameOrigin(req: Request): void {
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin')
    throw forbidden('The console session is only for the console’s own pages');
}

function setSession(req: Request, res: Response, token: string): void {
  res.cookie(CONSOLE_SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    path: COOKIE_PATH,
    maxAge: CONSOLE_SESSION_SECONDS * 1000,
  });
}

function clearSession(req: Request, res: Response): void {
  res.clearCookie(CONSOLE_SESSION_COOKIE, {
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    path: COOKIE_PATH,
  });
}

/** A token for the session's user as they stand now: 401 (and the cookie cleared) when the session, the user or the key is gone. */
async function renew(req: Request, res: Response, deps: ApiDeps) {
  const cookie = req.headers.cookie ? parseCookies(req.headers.cookie)[CONSOLE_SESSION_COOKIE] : undefined;
  const end = (detail: string) => (clearSession(req, res), unauthorized(detail));
  if (!cookie) throw end('No console session: sign in with an API key');
  let session;
  try {
    session = await deps.tokens.verifyConsoleSession(cookie);
  } catch (err) {
    if (err instanceof InvalidTokenError) throw end(`The console ${err.message}`);
    throw err;
  }
  return tokenForSession(deps, session).catch((err: unknown) => {
    if (isDomainError(err, 'unauthenticated')) clearSession(req, res);
    throw err;
  });
}

const sessionDescription =
  'The session is an HttpOnly, SameSite=Strict cookie (`ars_console_session`, path `/api/v1/auth/console`, Secure over HTTPS) ' +
  `that lasts ${CONSOLE_SESSION_SECONDS / 3600} hours from sign-in; it is no bearer token and names no key. Browsers may ` +
  'use it only from the same origin (`Sec-Fetch-Site`, else 403).';

export const consoleSessionRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/v1/auth/console/session',
    operationId: 'signInConsole',
    summary: 'Sign the web console in with an API key',
    description:
      'Exchanges the key exactly as POST /api/v1/auth/exchange/agent-token does (same answer, same failure budgets) and ' +
      'sets the console session, which POST /api/v1/auth/console/refresh turns into fresh tokens, so the page keeps no key. ' +
      sessionDescription,
    tags: ['auth'],
    auth: 'none',
    body: exchangeRequestSchema,
    responses: {
      200: {
        description: 'A fresh token; the session cookie is set',
        schema: exchangeResponseSchema,
        headers: { 'Set-Cookie': 'The console session' },
      },
      401: { description: 'Invalid or revoked API key', schema: errorSchema },
      403: { description: 'A browser request from another origin', schema: errorSchema },
      429: exchangeRefusedResponse,
      422: errorResponses[422],
    },
    async handler({ req, res, body }, deps) {
      requireSameOrigin(req);
      const holder = await holderOfKey(deps, req.ip ?? 'unknown', body.api_key);
      const answer = await tokenFor(deps, holder);
      setSession(req, res, (await deps.tokens.issueConsoleSession(holder)).token);
      return answer;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/auth/console/refresh',
    operationId: 'refreshConsoleToken',
    summary: 'A fresh token for the signed-in web console',
    description:
      'A new one-hour token for the console session’s user, with their role as it is now. 401 (and the cookie cleared) ' +
      'when there is no session, it has ended, the user left the organization or the key was revoked: the console then ' +
      'asks for the key again. ' +
      sessionDescription,
    tags: ['auth'],
    auth: 'none',
    responses: {
      200: { description: 'A fresh token', schema: exchangeResponseSchema },
      401: { description: 'No live console session', schema: errorSchema },
      403: { description: 'A browser request from another origin', schema: errorSchema },
    },
    async handler({ req, res }, deps) {
      requireSameOrigin(req);
      return renew(req, res, deps);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/auth/console/session',
    operationId: 'signOutConsole',
    summary: 'Sign the web console out',
    description:
      'Clears the console session cookie. Tokens already issued last until they expire (an hour at most); revoking the API key ends them at once.',
    tags: ['auth'],
    auth: 'none',
    status: 204,
    responses: {
      204: {
        description: 'Signed out; the session cookie is cleared',
        headers: { 'Set-Cookie': 'The cleared console session' },
      },
      403: { description: 'A browser request from another origin', schema: errorSchema },
    },
    async handler({ req, res }) {
      requireSameOrigin(req);
      clearSession(req, res);
      res.status(204).end();
      return undefined;
    },
  }),
];
