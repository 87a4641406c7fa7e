import { finished } from 'node:stream';
import { parse as parseCookies } from 'cookie';
import type { Request, RequestHandler } from 'express';
import type { Db } from '../../db/client.ts';
import type { AgentForUser } from '../../db/agents.ts';
import { findUserStanding, findUserStandingWithAgent, type UserStanding } from '../../db/users.ts';
import { InvalidTokenError, type TokenClaims, type TokenService } from '../../auth/tokens.ts';
import type { AgentContext, Caller } from '../../auth/caller.ts';
import { forbidden, invalidValue, unauthorized } from '../errors.ts';
import { loadUsableAgent, usableAgent } from '../services/agent-access.ts';
import type { OrgStartGate } from '../services/org-start-gate.ts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      caller?: Caller;
      agent?: AgentContext;
      /** The agent of `X-Agent-Id` (null: none such) as authentication read it with the caller; requireAgent checks it. */
      agentRead?: { agent: AgentForUser | null; orgCreditBalance: bigint; orgMaxConcurrentRuns: number | null };
      /** Gives back the org's start place authentication took (`startGate`); route.ts calls it before the handler. */
      releaseStartPlace?: () => void;
    }
  }
}

export const SESSION_COOKIE = 'auth_session';

/**
 * Accepts `Authorization: Bearer <jwt>`, and where `allowCookie` is set (the
 * tasks and runs endpoints) the `auth_session` cookie in its place. The token
 * proves who the caller is; what they may do comes from the database on every
 * request: the role is the user's current role, and a removed user or a revoked
 * API key is refused at once, not when the token expires. With `withAgent` (routes that
 * require an agent) the agent of `X-Agent-Id` and the org's credit balance are read in the
 * same statement (and its limit of concurrent runs), for requireAgent and a run start to use.
 */
export function authenticate(
  tokens: TokenService,
  db: Db,
  {
    allowCookie = false,
    withAgent = false,
    startGate,
  }: {
    allowCookie?: boolean;
    withAgent?: boolean;
    /** A run-start route: the reads below wait for a place among the org's starts (org-start-gate.ts). */
    startGate?: OrgStartGate;
  } = {},
): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization');
    let token: string | undefined;
    if (header) {
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match) throw unauthorized('Authorization header must be "Bearer <token>"');
      token = match[1];
    } else if (allowCookie && req.headers.cookie) {
      token = parseCookies(req.headers.cookie)[SESSION_COOKIE];
    }
    if (!token) throw unauthorized('Missing bearer token');
    let claims: TokenClaims;
    try {
      claims = await tokens.verify(token);
    } catch (err) {
      if (err instanceof InvalidTokenError) throw unauthorized(err.message);
      throw err;
    }
    // A widget visitor token opens the widget gateway only (src/api/widget/visitor-auth.ts).
    if (claims.widget) throw forbidden('A widget visitor token is only valid on /api/v1/widget/* endpoints');
    if (startGate) {
      // By the token's org (signed, so no one takes another org's places): one org's flood of starts
      // then cannot fill the database pool with its callers' reads ahead of other orgs' requests.
      req.releaseStartPlace = await startGate.hold(claims.orgId);
      finished(res, req.releaseStartPlace); // refused on the way (401, 429) or gone: given back with the response
    }
    const agentId = withAgent ? agentIdOf(req) : undefined;
    if (agentId === undefined) {
      req.caller = await currentCaller(db, claims);
      return next();
    }
    const standing = await findUserStandingWithAgent(db, claims.userId, keyOf(claims), agentId);
    req.caller = callerOf(claims, standing);
    const { agent, creditBalance, maxConcurrentRuns } = standing!; // callerOf refused a missing user
    req.agentRead = { agent, orgCreditBalance: creditBalance, orgMaxConcurrentRuns: maxConcurrentRuns };
    next();
  };
}

/** The caller as the database knows them now. */
export async function currentCaller(db: Db, claims: TokenClaims): Promise<Caller> {
  return callerOf(claims, await findUserStanding(db, claims.userId, keyOf(claims)));
}

/** The API key whose standing decides the token's: every token but a widget visitor's names one (the token service refuses others). */
function keyOf(claims: TokenClaims): string | undefined {
  return claims.widget ? undefined : claims.apiKeyId;
}

/** The caller of a token, given the user's standing now; 401 when the user left the org or the key was revoked. */
function callerOf(claims: TokenClaims, user: UserStanding | null): Caller {
  if (!user || user.orgId !== claims.orgId) throw unauthorized('This user no longer exists in the organization');
  if (user.keyRevoked) throw unauthorized('The API key this token came from was revoked or deleted');
  return { userId: claims.userId, orgId: user.orgId, role: user.role };
}

/** The trimmed `X-Agent-Id` header; undefined when absent or blank. */
function agentIdOf(req: Request): string | undefined {
  return req.get('x-agent-id')?.trim() || undefined;
}

/**
 * Resolves `X-Agent-Id`: unknown agent → 404; an agent of another org, or one
 * the caller was not granted → 403. Owners and admins may use every agent of
 * their org; members and guests need a grant; guests only customer-facing agents.
 */
export function requireAgent(db: Db): RequestHandler {
  return async (req, _res, next) => {
    const caller = req.caller!;
    const agentId = agentIdOf(req);
    if (!agentId) {
      throw invalidValue(['header', 'x-agent-id'], 'X-Agent-Id header is required', 'missing');
    }
    const read = req.agentRead; // read by authenticate (withAgent) from this same header
    const agent = read
      ? {
          ...usableAgent(read.agent, agentId, caller),
          orgCreditBalance: read.orgCreditBalance,
          orgMaxConcurrentRuns: read.orgMaxConcurrentRuns,
        }
      : await loadUsableAgent(db, agentId, caller);
    if (caller.role === 'guest' && !agent.customerFacing) throw forbidden('Guests may only use customer-facing agents');
    req.agent = agent;
    next();
  };
}
