import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { badRequest, HttpError, unauthorized } from '../errors.ts';
import { visitorFor, widgetKeyOf } from '../services/widget-sessions.ts';
import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { allowOriginOf } from './cors.ts';
import { readVisitorToken } from './visitor-auth.ts';

const sessionBodySchema = z.object({
  widget_key: z.string().min(1).describe('The publishable widget key (`ars_pub_…`)'),
  visitor_token: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A visitor token from an earlier session, also an expired one (up to 7 days): the new token is for the same visitor',
    ),
});

const sessionSchema = z
  .object({
    visitor_token: z.string().describe('Bearer token for the other /api/v1/widget/* endpoints only'),
    expires_at: z.string().describe('When the token expires (ISO 8601); ask for a new one with `visitor_token` before'),
    visitor_id: z
      .string()
      .describe(
        'The visitor: a guest of the widget key’s organization that is no member, deleted when idle for WIDGET_VISITOR_DAYS',
      ),
    agent: z.object({ id: z.string(), name: z.string() }),
  })
  .meta({ id: 'WidgetSession' });

/**
 * POST /api/v1/widget/session: trades a publishable widget key for a short-lived visitor
 * token. A new visitor becomes a guest user of the key's org; a returning one (its earlier
 * token, of the same key) keeps its identity and so its tasks.
 */
export const widgetSessionRoute = defineRoute({
  method: 'post',
  path: '/api/v1/widget/session',
  operationId: 'startWidgetSession',
  summary: 'Start or renew a widget visitor session',
  description:
    'For the embedded chat widget (`widget.js`). The request must come from a browser origin the widget key allows ' +
    '(its `Origin` header), else 403 without CORS headers. Answers a visitor token (role guest, one visitor identity, ' +
    "the key's agent) valid only on /api/v1/widget/* for WIDGET_TOKEN_LIFETIME_SECONDS (1 hour by default). Send the " +
    'previous `visitor_token` (even expired, up to 7 days) to stay the same visitor and keep your tasks; one that does not ' +
    'verify, or is of another key, gives a new visitor. A visitor is a guest of the org but no member (never listed or ' +
    'exported); one without a new session for WIDGET_VISITOR_DAYS (30) is deleted with its tasks. A revoked or ' +
    "unknown key is 401; a key whose agent is no longer customer-facing is 400. Counted against the key's, the client " +
    "address's and the visitor's widget rate limits (429 with Retry-After).",
  tags: ['widget'],
  auth: 'none',
  body: sessionBodySchema,
  responses: {
    200: { description: 'A visitor token', schema: sessionSchema },
    400: { description: "The key's agent is not customer-facing", schema: errorSchema },
    401: { description: 'Unknown or revoked widget key', schema: errorSchema },
    403: { description: "The request's Origin is not allowed for this widget key", schema: errorSchema },
    422: errorResponses[422],
    429: {
      description: 'Widget rate limit of the key, the client address or the visitor exceeded; see Retry-After',
      schema: errorSchema,
      headers: { 'Retry-After': 'Seconds to wait' },
    },
  },
  async handler({ req, res, body }, deps) {
    const key = await widgetKeyOf(deps.db, body.widget_key);
    allowOriginOf(req, res, key.origins);
    if (key.revokedAt) throw unauthorized('This widget key was revoked');
    await deps.rateLimits.consumeBudget('widget-address', req.ip ?? 'unknown');
    await deps.rateLimits.consumeBudget('widget-key', key.id);
    if (!key.agent.customerFacing) throw badRequest('The agent of this widget key is not customer-facing');
    const visitorId = await visitorFor(deps, key, await returningVisitor(deps, body.visitor_token));
    await deps.rateLimits.consumeBudget('widget-visitor', visitorId);
    const issued = await deps.tokens.issue(
      {
        userId: visitorId,
        orgId: key.orgId,
        role: 'guest',
        apiKeyId: '',
        widget: { keyId: key.id, agentId: key.agentId },
      },
      new Date(),
      deps.config.widget.tokenLifetimeSeconds,
    );
    const agent = { id: key.agent.id, name: key.agent.name };
    return { visitor_token: issued.token, expires_at: issued.expiresAt.toISOString(), visitor_id: visitorId, agent };
  },
});

/**
 * The visitor an earlier token names, if it still verifies. A token that no longer does (too old, or
 * signed with a replaced secret) just means a new visitor: refusing it would leave a returning browser
 * without a chat.
 */
async function returningVisitor(deps: ApiDeps, visitorToken: string | undefined) {
  if (!visitorToken) return null;
  return readVisitorToken(deps, visitorToken).catch((err: unknown) =>
    err instanceof HttpError ? null : Promise.reject(err),
  );
}
