import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { Config } from '../config.ts';
import type { Role } from '../db/users.ts';

/** The only algorithm we sign with and the only one we accept. */
export const JWT_ALGORITHM = 'HS256';
export const TOKEN_LIFETIME_SECONDS = 3600;

export interface TokenClaims {
  userId: string;
  orgId: string;
  role: Role;
  apiKeyId: string;
}

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError';
}

export function createTokenService(jwt: Config['jwt']) {
  const key = new TextEncoder().encode(jwt.secret);
  return {
    async issue(claims: TokenClaims, now = new Date()): Promise<IssuedToken> {
      const iat = Math.floor(now.getTime() / 1000);
      const exp = iat + TOKEN_LIFETIME_SECONDS;
      const token = await new SignJWT({ org_id: claims.orgId, role: claims.role, key_id: claims.apiKeyId })
        .setProtectedHeader({ alg: JWT_ALGORITHM, kid: jwt.kid, typ: 'JWT' })
        .setSubject(claims.userId)
        .setIssuer(jwt.issuer)
        .setAudience(jwt.audience)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(key);
      return { token, expiresAt: new Date(exp * 1000) };
    },

    async verify(token: string): Promise<TokenClaims> {
      try {
        const { payload, protectedHeader } = await jwtVerify(token, key, {
          algorithms: [JWT_ALGORITHM],
          issuer: jwt.issuer,
          audience: jwt.audience,
          requiredClaims: ['sub', 'exp', 'org_id', 'role'],
        });
        if (protectedHeader.kid !== jwt.kid) throw new InvalidTokenError('token was signed with an unknown key');
        return {
          userId: String(payload.sub),
          orgId: String(payload.org_id),
          role: payload.role as Role,
          apiKeyId: String(payload.key_id ?? ''),
        };
      } catch (err) {
        if (err instanceof InvalidTokenError) throw err;
        if (err instanceof joseErrors.JWTExpired) throw new InvalidTokenError('token has expired; exchange your API key again');
        throw new InvalidTokenError('token is invalid');
      }
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
