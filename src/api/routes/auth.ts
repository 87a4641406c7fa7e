import { z } from 'zod';
import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { holderOfKey, tokenFor } from '../services/key-exchange.ts';

export const exchangeRequestSchema = z
  .strictObject({
    api_key: z.string().min(1).max(512).describe('An API key made with the admin console (`ars_live_…`)'),
  })
  .meta({ id: 'TokenExchangeRequest' });

export const exchangeResponseSchema = z
  .object({
    access_token: z.string().describe('JWT (HS256) for `Authorization: Bearer`'),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().describe('Seconds until expiry: 3600'),
    expires_at: z.string().describe('ISO 8601 UTC expiry time'),
    org_id: z.string(),
    user_id: z.string(),
    role: z.enum(['owner', 'admin', 'member', 'guest']),
  })
  .meta({ id: 'TokenExchangeResponse' });

/** The 429 of every door that takes an API key: its failures are counted per client address and per key. */
export const exchangeRefusedResponse = {
  description: 'Too many failed exchanges from this client address or for this key; wait `Retry-After` seconds',
  schema: errorSchema,
  headers: { 'Retry-After': 'Seconds until exchanges are accepted again' },
};

export const authRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/v1/auth/exchange/agent-token',
    operationId: 'exchangeAgentToken',
    summary: 'Exchange an API key for a JWT',
    description:
      'Turns an API key into a JWT valid for one hour (`iss`, `aud`, `exp`, `kid` in the header; HS256 only). ' +
      'The key is looked up by its SHA-256 hash and compared in constant time. Revoked or unknown keys get 401. ' +
      'When the token expires, requests get 401 and the client exchanges again. Failed exchanges are counted per client ' +
      'address (20 per 15 minutes by default) and per key (5): past either budget, exchanges from that address or for that ' +
      'key get 429 with `Retry-After`, right key or wrong, until the window passes.',
    tags: ['auth'],
    auth: 'none',
    body: exchangeRequestSchema,
    responses: {
      200: { description: 'A fresh token', schema: exchangeResponseSchema },
      401: { description: 'Invalid or revoked API key', schema: errorSchema },
      429: exchangeRefusedResponse,
      422: errorResponses[422],
    },
    async handler({ req, body }, deps) {
      return tokenFor(deps, await holderOfKey(deps, req.ip ?? 'unknown', body.api_key));
    },
  }),
];
