import { decodeJwt } from 'jose';
import type { RequestHandler } from 'express';
import { InvalidTokenError, type TokenClaims } from '../../auth/tokens.ts';
import type { ApiDeps } from '../deps.ts';
import { badRequest, forbidden, unauthorized } from '../errors.ts';
import { currentCaller } from '../middleware/authenticate.ts';
import { widgetKeyWithAgent } from '../services/widget-sessions.ts';
import { allowOriginOf } from './cors.ts';

/** How long after expiry a visitor token may still be traded for a new one of the same visitor. */
export const VISITOR_RENEWAL_GRACE_SECONDS = 7 * 24 * 3600;

/**
 * Authenticates a widget gateway request: `Authorization: Bearer <visitor token>`, a token
 * from POST /api/v1/widget/session (normal tokens are refused). Sets the caller (the visitor,
 * a guest user of the key's org) and the agent (the key's), checked on every request: the
 * key unrevoked, the Origin allowed for it, the agent still customer-facing (400 otherwise,
 * as for any customer-facing channel), and the visitor's, client address's and key's rate limits.
 */
export function authenticateVisitor(deps: ApiDeps): RequestHandler {
  return async (req, res, next) => {
    const match = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '');
    if (!match)
      throw unauthorized(
        'Widget requests need "Authorization: Bearer <visitor token>" from POST /api/v1/widget/session',
      );
    const claims = await readVisitorToken(deps, match[1]!);
    const key = await widgetKeyWithAgent(deps.db, claims.widget.keyId);
    if (!key || key.orgId !== claims.orgId) throw unauthorized('The widget key of this token no longer exists');
    allowOriginOf(req, res, key.origins);
    // From here on the browser may read the answer: an expired token is told apart, so widget.js renews it.
    if (decodeJwt(match[1]!).exp! * 1000 <= Date.now())
      throw unauthorized('visitor token has expired; start a new session');
    if (key.revokedAt) throw unauthorized('This widget key was revoked');
    req.caller = { ...(await currentCaller(deps.db, claims)), role: 'guest', widgetKeyId: key.id };
    // The visitor's budget first: requests a visitor's own limit refuses do not use up the key's (all visitors').
    // A client makes visitors at will, so its address has a budget across them all.
    await deps.rateLimits.consumeBudget('widget-visitor', claims.userId);
    await deps.rateLimits.consumeBudget('widget-address', req.ip ?? 'unknown');
    await deps.rateLimits.consumeBudget('widget-key', key.id);
    if (key.agent.id !== claims.widget.agentId) throw forbidden('This visitor token is for another agent');
    if (!key.agent.customerFacing)
      throw badRequest(`Agent ${key.agent.name} is not customer-facing; the widget cannot use it`);
    req.agent = key.agent;
    next();
  };
}

/** A visitor token's claims, also of one expired not long ago (the caller checks expiry itself). */
export async function readVisitorToken(
  deps: ApiDeps,
  token: string,
): Promise<TokenClaims & Required<Pick<TokenClaims, 'widget'>>> {
  let claims: TokenClaims;
  try {
    claims = await deps.tokens.verify(token, { expiredGraceSeconds: VISITOR_RENEWAL_GRACE_SECONDS });
  } catch (err) {
    if (err instanceof InvalidTokenError) throw unauthorized(err.message);
    throw err;
  }
  if (!claims.widget) throw unauthorized('Widget endpoints need a widget visitor token, not an API token');
  return claims as TokenClaims & Required<Pick<TokenClaims, 'widget'>>;
}
