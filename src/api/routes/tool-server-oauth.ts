import { z } from 'zod';
import { toolServerSettingsSchema } from '../../shared/tool-server-settings.ts';
import { formatIssues } from '../../shared/zod-issues.ts';
import { badRequest } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { requireOrgAdmin } from '../services/org-admin-access.ts';
import { CALLBACK_PATH, finishConnect, startConnect, type CallbackOutcome } from '../services/tool-server-connect.ts';
import { testToolServerSchema } from './admin-tool-servers.ts';

/*
 * Connect of Admin → Agents: the OAuth authorization-code grant (with PKCE) for a tool server that
 * acts for a user. An admin starts it (the api discovers the server's authorization server and
 * answers its authorization URL); the authorization server sends the admin's browser back to the
 * callback, which stores the grant as the org secret the settings name.
 */

const connectResultSchema = z
  .object({
    server: z.string(),
    authorization_url: z.string().describe("Open it in the admin's browser: the authorization server asks for consent"),
    secret: z.string().describe('The org secret the grant will be stored in (refresh_token of the settings)'),
    expires_at: z.string().describe('The consent must be given before then (ten minutes)'),
  })
  .meta({ id: 'ToolServerConnectStarted' });

/** OAuth's parameters are printable ASCII (RFC 6749 appendix A); the limits keep the URL within Node's 16 KB of headers. */
const oauthParam = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[\x20-\x7e]*$/, 'must be printable ASCII')
    .optional();

const callbackQuerySchema = z.object({
  state: oauthParam(200),
  code: oauthParam(2000),
  error: oauthParam(200),
  error_description: oauthParam(1000),
  iss: oauthParam(1000),
});

export const toolServerOAuthRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/admin/tool-servers/connect',
    operationId: 'connectToolServer',
    summary: 'Start the OAuth authorization (Connect) of a tool server',
    description:
      'Organization-scoped; no X-Agent-Id needed. Owners and admins only (members and guests get 403). The body is one entry of an ' +
      "agent's `tool_servers` with `oauth.grant` `authorization_code`, saved or not. The api connects to the server, follows its " +
      'OAuth discovery (protected resource metadata, then authorization server metadata; a configured `issuer` must match), registers ' +
      'a client when no `client_id` is given (if the authorization server allows it) and answers the authorization URL (PKCE S256, ' +
      `\`resource\`, \`state\`) with the redirect URI \`PUBLIC_BASE_URL${CALLBACK_PATH}\`. When the user consents, the callback ` +
      'stores the grant in the org secret `oauth.refresh_token` names: the worker gets access tokens from it and refreshes them. ' +
      'A server that cannot be reached or refuses is 400 with the reason.',
    tags: ['admin'],
    auth: 'user',
    rateLimit: 'approvals',
    body: testToolServerSchema,
    responses: {
      200: { description: 'The authorization URL to open', schema: connectResultSchema },
      400: {
        description:
          'Not a valid tool server of agent settings, not the authorization-code grant, a secret it names is missing, or the server or its authorization server could not be reached or refused',
        schema: errorSchema,
      },
      ...errorResponses,
    },
    async handler({ caller, body }, deps) {
      requireOrgAdmin(caller);
      const parsed = toolServerSettingsSchema.safeParse(body);
      if (!parsed.success) throw badRequest(formatIssues(parsed.error.issues, { root: 'body' }).join('; '));
      return startConnect(deps, caller, parsed.data);
    },
  }),
  defineRoute({
    method: 'get',
    path: CALLBACK_PATH,
    operationId: 'toolServerOAuthCallback',
    summary: "Where an authorization server sends the admin's browser back (Connect)",
    description:
      'No bearer token: the `state` names a Connect started in the last ten minutes, once. The code is exchanged (with the PKCE ' +
      'verifier) and the grant stored as the org secret; the page says whether it worked, and never shows a token.',
    tags: ['admin'],
    auth: 'none',
    query: callbackQuerySchema,
    responses: {
      200: { description: 'Connected: a page saying so', schema: z.string(), contentType: 'text/html' },
      400: {
        description: 'Unknown, used or expired state, or the authorization or the exchange failed: a page saying why',
        schema: z.string(),
        contentType: 'text/html',
      },
      422: errorResponses[422],
    },
    async handler({ query, res }, deps) {
      const outcome = await finishConnect(deps, query);
      res
        .status(outcome.ok ? 200 : 400)
        .type('html')
        .set('Cache-Control', 'no-store')
        .set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(page(outcome));
      return undefined;
    },
  }),
];

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(outcome: CallbackOutcome): string {
  const [title, body] = outcome.ok
    ? [
        `Connected ${outcome.server}`,
        `The tool server ${outcome.server} is connected (org secret ${outcome.secret}). You can close this window.`,
      ]
    : ['Not connected', `The tool server was not connected: ${outcome.reason}.`];
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;margin:3em"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(body)}</p></body></html>`;
}
