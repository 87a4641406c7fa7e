import { Router } from 'express';
import { z } from 'zod';
import { hashApiKey, hashesEqual, looksLikeApiKey } from '../../auth/api-keys.ts';
import { TOKEN_LIFETIME_SECONDS } from '../../auth/tokens.ts';
import type { ApiDeps } from '../deps.ts';
import { unauthorized } from '../errors.ts';
import { parse } from '../validation.ts';

export const exchangeRequestSchema = z.object({ api_key: z.string().min(1).max(512) }).strict();

/**
 * POST /api/v1/auth/exchange/agent-token: `{api_key}` → a 1-hour JWT.
 * The key is looked up by its SHA-256 hash and compared in constant time.
 */
export function authRoutes({ db, tokens }: ApiDeps): Router {
  const router = Router();
  router.post('/api/v1/auth/exchange/agent-token', async (req, res) => {
    const { api_key: apiKey } = parse(exchangeRequestSchema, req.body, 'body');
    if (!looksLikeApiKey(apiKey)) throw unauthorized('Invalid API key');
    const hash = hashApiKey(apiKey);
    const key = await db.apiKey.findUnique({ where: { hash }, include: { user: { select: { id: true, role: true, orgId: true } } } });
    if (!key || !hashesEqual(key.hash, hash) || key.revokedAt) throw unauthorized('Invalid API key');
    const issued = await tokens.issue({ userId: key.user.id, orgId: key.orgId, role: key.user.role, apiKeyId: key.id });
    await db.apiKey.update({ where: { id: key.id }, data: { lastUsedAt: new Date() } });
    res.json({
      access_token: issued.token,
      token_type: 'Bearer',
      expires_in: TOKEN_LIFETIME_SECONDS,
      expires_at: issued.expiresAt.toISOString(),
      org_id: key.orgId,
      user_id: key.user.id,
      role: key.user.role,
    });
  });
  return router;
}
