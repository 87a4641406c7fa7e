/**
 * An API key turned into an hour's token: one path for POST /api/v1/auth/exchange/agent-token and the
 * web console's sign-in, so both count failures against the same budgets and compare in constant time.
 */
import { hashApiKey, hashesEqual, looksLikeApiKey } from '../../auth/api-keys.ts';
import { TOKEN_LIFETIME_SECONDS, type ConsoleSessionClaims, type IssuedToken } from '../../auth/tokens.ts';
import { findApiKeyByHash, markApiKeyUsed } from '../../db/api-keys.ts';
import { findUserStanding, type Role } from '../../db/users.ts';
import type { ApiDeps } from '../deps.ts';
import { unauthenticated } from '../../shared/domain-error.ts';

/** The body of a token answer (TokenExchangeResponse). */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  expires_at: string;
  org_id: string;
  user_id: string;
  role: Role;
}

export interface Holder {
  userId: string;
  orgId: string;
  role: Role;
  apiKeyId: string;
}

/** A fresh token for `holder`, as a token answer; marks the key used. */
export async function tokenFor({ db, tokens }: Pick<ApiDeps, 'db' | 'tokens'>, holder: Holder): Promise<TokenAnswer> {
  const issued: IssuedToken = await tokens.issue(holder);
  await markApiKeyUsed(db, holder.apiKeyId);
  return {
    access_token: issued.token,
    token_type: 'Bearer',
    expires_in: TOKEN_LIFETIME_SECONDS,
    expires_at: issued.expiresAt.toISOString(),
    org_id: holder.orgId,
    user_id: holder.userId,
    role: holder.role,
  };
}

/**
 * Who `apiKey` belongs to. A wrong, unknown or revoked key is 401 and counts as a failure for the
 * client `address` and for the key; past either budget, 429 until the window passes, right key or wrong.
 */
export async function holderOfKey(
  { db, rateLimits }: Pick<ApiDeps, 'db' | 'rateLimits'>,
  address: string,
  apiKey: string,
): Promise<Holder> {
  const hash = hashApiKey(apiKey);
  await rateLimits.exchange.check(address, hash);
  const refuse = async () => {
    await rateLimits.exchange.failed(address, hash);
    return unauthenticated('Invalid API key');
  };
  if (!looksLikeApiKey(apiKey)) throw await refuse();
  const key = await findApiKeyByHash(db, hash);
  if (!key || !hashesEqual(key.hash, hash) || key.revokedAt) throw await refuse();
  return { userId: key.user.id, orgId: key.orgId, role: key.user.role, apiKeyId: key.id };
}

/** A fresh token for a console session's user as they stand now: unauthenticated when the user or the key is gone. */
export async function tokenForSession(
  deps: Pick<ApiDeps, 'db' | 'tokens'>,
  session: ConsoleSessionClaims,
): Promise<TokenAnswer> {
  const standing = await findUserStanding(deps.db, session.userId, session.apiKeyId);
  if (!standing || standing.orgId !== session.orgId)
    throw unauthenticated('This user no longer exists in the organization');
  if (standing.keyRevoked) throw unauthenticated('The API key this session came from was revoked or deleted');
  return tokenFor(deps, { ...session, role: standing.role });
}
