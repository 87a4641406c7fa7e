import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.ts';
import type { Role } from '../db/users.ts';

/** The only algorithm we sign with and the only one we accept. */
export const JWT_ALGORITHM = 'HS256';
export const TOKEN_LIFETIME_SECONDS = 3600;
/** How long a web console sign-in lasts (a working day): its session cookie renews the hour-long tokens until then. */
export const CONSOLE_SESSION_SECONDS = 12 * 3600;

/** Who a console session is: the user, their org and the API key they signed in with (checked again at every renewal). */
export interface ConsoleSessionClaims {
  userId: string;
  orgId: string;
  apiKeyId: string;
}

export interface TokenClaims {
  userId: string;
  orgId: string;
  role: Role;
  apiKeyId: string;
  /** Present only on a widget visitor token: valid on /api/v1/widget/* and nowhere else. */
  widget?: WidgetClaims;
}

/** What a visitor token adds: the widget key it came from and the one agent it may use. */
export interface WidgetClaims {
  keyId: string;
  agentId: string;
}

/** The `scope` claim of a visitor token; normal tokens carry none. */
export const WIDGET_SCOPE = 'widget';

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError';
}

/** How many verified tokens an api process remembers (a few MiB at most). */
const VERIFIED_TOKENS = 10_000;

export function createTokenService(jwt: Config['jwt']) {
  // Imported once: given the raw bytes, jose imports a CryptoKey on every sign and verify (~0.2 ms of CPU per request).
  const key = crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(jwt.secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
  key.catch(() => {}); // a bad secret fails each sign and verify, where it is used
  /**
   * Claims of tokens verified lately, by the token's whole text (its signature included, so only a
   * token we signed can match), each kept until the token expires. A client sends the same token
   * with every request for its lifetime; verifying it again (HMAC through WebCrypto's thread pool,
   * the claims' checks) costs ~0.2 ms of CPU a request. Whether the key or user still stands is
   * read per request anyway (auth middleware), so a remembered token is never more than a checked signature.
   */
  const verified = new LRUCache<string, TokenClaims>({ max: VERIFIED_TOKENS });
  // A console session token has an audience of its own: it is no bearer token, and no bearer token is a session.
  const sessionAudience = `${jwt.audience}/console-session`;
  return {
    /** A token for `claims`; a visitor token when `claims.widget` is set, then usually with a shorter `lifetimeSeconds`. */
    async issue(claims: TokenClaims, now = new Date(), lifetimeSeconds = TOKEN_LIFETIME_SECONDS): Promise<IssuedToken> {
      const iat = Math.floor(now.getTime() / 1000);
      const exp = iat + lifetimeSeconds;
      const widget = claims.widget
        ? { scope: WIDGET_SCOPE, wkey: claims.widget.keyId, agent_id: claims.widget.agentId }
        : {};
      const token = await new SignJWT({ org_id: claims.orgId, role: claims.role, key_id: claims.apiKeyId, ...widget })
        .setProtectedHeader({ alg: JWT_ALGORITHM, kid: jwt.kid, typ: 'JWT' })
        .setSubject(claims.userId)
        .setIssuer(jwt.issuer)
        .setAudience(jwt.audience)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(await key);
      return { token, expiresAt: new Date(exp * 1000) };
    },

    /**
     * The claims of a token we signed. `expiredGraceSeconds` accepts a token that expired at most that
     * long ago (only to renew a widget visitor's token for the same visitor, never to authorize a request).
     */
    async verify(token: string, { expiredGraceSeconds = 0 } = {}): Promise<TokenClaims> {
      const remembered = expiredGraceSeconds === 0 ? verified.get(token) : undefined;
      if (remembered) return remembered;
      try {
        const { payload, protectedHeader } = await jwtVerify(token, await key, {
          algorithms: [JWT_ALGORITHM],
          issuer: jwt.issuer,
          audience: jwt.audience,
          requiredClaims: ['sub', 'exp', 'org_id', 'role'],
          clockTolerance: expiredGraceSeconds,
        });
        if (protectedHeader.kid !== jwt.kid) throw new InvalidTokenError('token was signed with an unknown key');
        const isWidget = payload.scope === WIDGET_SCOPE;
        if (isWidget && (typeof payload.wkey !== 'string' || typeof payload.agent_id !== 'string'))
          throw new InvalidTokenError('token is invalid');
        // Every request checks that the token's key still stands: a token naming no key would skip that check.
        if (!isWidget && (typeof payload.key_id !== 'string' || payload.key_id === ''))
          throw new InvalidTokenError('token is invalid');
        const claims: TokenClaims = Object.freeze({
          userId: String(payload.sub),
          orgId: String(payload.org_id),
          role: payload.role as Role,
          apiKeyId: isWidget ? '' : String(payload.key_id),
          ...(isWidget ? { widget: { keyId: String(payload.wkey), agentId: String(payload.agent_id) } } : {}),
        });
        const lifeMs = payload.exp! * 1000 - Date.now();
        if (lifeMs > 0) verified.set(token, claims, { ttl: lifeMs });
        return claims;
      } catch (err) {
        if (err instanceof InvalidTokenError) throw err;
        if (err instanceof joseErrors.JWTExpired)
          throw new InvalidTokenError('token has expired; exchange your API key again');
        throw new InvalidTokenError('token is invalid');
      }
    },

    /** The web console's session token (its HttpOnly cookie), valid `CONSOLE_SESSION_SECONDS` from sign-in. */
    async issueConsoleSession(claims: ConsoleSessionClaims, now = new Date()): Promise<IssuedToken> {
      const iat = Math.floor(now.getTime() / 1000);
      const exp = iat + CONSOLE_SESSION_SECONDS;
      const token = await new SignJWT({ org_id: claims.orgId, key_id: claims.apiKeyId })
        .setProtectedHeader({ alg: JWT_ALGORITHM, kid: jwt.kid, typ: 'JWT' })
        .setSubject(claims.userId)
        .setIssuer(jwt.issuer)
        .setAudience(sessionAudience)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(await key);
      return { token, expiresAt: new Date(exp * 1000) };
    },

    async verifyConsoleSession(token: string): Promise<ConsoleSessionClaims> {
      try {
        const { payload, protectedHeader } = await jwtVerify(token, await key, {
          algorithms: [JWT_ALGORITHM],
          issuer: jwt.issuer,
          audience: sessionAudience,
          requiredClaims: ['sub', 'exp', 'org_id', 'key_id'],
        });
        if (protectedHeader.kid !== jwt.kid || typeof payload.key_id !== 'string' || typeof payload.org_id !== 'string')
          throw new InvalidTokenError('session is invalid');
        return { userId: String(payload.sub), orgId: payload.org_id, apiKeyId: payload.key_id };
      } catch (err) {
        if (err instanceof InvalidTokenError) throw err;
        if (err instanceof joseErrors.JWTExpired) throw new InvalidTokenError('session has ended; sign in again');
        throw new InvalidTokenError('session is invalid');
      }
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
