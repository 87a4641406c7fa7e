import { z } from 'zod';
import { secretNameSchema } from './secret-names.ts';
import { isToolServerName } from './tool-server-names.ts';

/** Headers the MCP transport sets itself: an agent's settings may not override them. */
const TRANSPORT_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

/** Headers that carry credentials: their values must come from the org's secrets, never from settings in plain text. */
export const isCredentialHeader = (name: string) =>
  /^(authorization|proxy-authorization|cookie)$|token|key|secret|password|auth|session|cookie/i.test(name);

const hasCredentials = (url: URL) => Boolean(url.username || url.password);

const headerValueSchema = z.union([
  z.strictObject({ secret: secretNameSchema }),
  z
    .string()
    .max(1000)
    .regex(/^[^\r\n]*$/, 'must be one line'),
]);

/** RFC 6749 §3.3: space-separated scope tokens. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;

const issuerSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .max(2000)
  .optional()
  .describe(
    'The authorization server (issuer URL) the client credentials may be sent to; when left out, the one the server advertises',
  );

/**
 * OAuth for a machine-to-machine server (the MCP authorization spec): the client-credentials grant,
 * its client secret from an org secret. The authorization server is discovered from the server
 * (protected resource metadata, then authorization server metadata) unless `issuer` pins it.
 */
const clientCredentialsSchema = z
  .strictObject({
    grant: z.literal('client_credentials').describe('The OAuth grant: client_credentials (machine to machine)'),
    client_id: z.string().min(1).max(500).describe('The OAuth client id registered with the authorization server'),
    client_secret: z
      .strictObject({ secret: secretNameSchema })
      .optional()
      .describe('The client secret from the org\'s secret NAME ({"secret": "NAME"}), read by the worker at call time'),
    private_key: z
      .strictObject({ secret: secretNameSchema })
      .optional()
      .describe(
        "private_key_jwt instead of a client secret: the org secret NAME holds the client's private key (PKCS#8 PEM) that signs its assertion",
      ),
    signing_algorithm: z
      .enum(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'])
      .optional()
      .describe('The algorithm of private_key (default RS256)'),
    scope: z.string().max(1000).regex(SCOPE, 'must be space-separated OAuth scopes').optional(),
    issuer: issuerSchema,
  })
  .refine((o) => Boolean(o.client_secret) !== Boolean(o.private_key), {
    path: ['client_secret'],
    message: 'give client_secret or private_key (one of them)',
  })
  .refine((o) => !o.signing_algorithm || o.private_key, {
    path: ['signing_algorithm'],
    message: 'is for private_key',
  })
  .describe('OAuth client credentials: the worker gets and refreshes the bearer token itself');

/**
 * OAuth for a server that acts for a user (the MCP authorization spec): the authorization-code
 * grant with PKCE, started by an admin's "Connect" in the console. What the grant yields (the
 * refresh token and what refreshing needs) is written to the org secret `refresh_token` names;
 * without `client_id`, the client registers itself (dynamic client registration) when connecting.
 */
const authorizationCodeSchema = z
  .strictObject({
    grant: z.literal('authorization_code').describe("The OAuth grant: authorization_code (a user's consent, Connect)"),
    client_id: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe('A client id registered with the authorization server; when left out, dynamic client registration'),
    client_secret: z
      .strictObject({ secret: secretNameSchema })
      .optional()
      .describe("The registered client's secret from the org's secret NAME; none for a public client"),
    scope: z.string().max(1000).regex(SCOPE, 'must be space-separated OAuth scopes').optional(),
    issuer: issuerSchema,
    refresh_token: z
      .strictObject({ secret: secretNameSchema })
      .describe(
        'The org secret NAME that Connect writes (the refresh token and what refreshing needs); never readable',
      ),
  })
  .refine((o) => !o.client_secret || o.client_id, {
    path: ['client_secret'],
    message: 'needs client_id (a registered client)',
  })
  .describe(
    "OAuth authorization code with PKCE: an admin connects once (Connect), the worker refreshes the user's token",
  );

export const toolServerOAuthSchema = z.discriminatedUnion('grant', [clientCredentialsSchema, authorizationCodeSchema]);

export type ToolServerOAuthSettings = z.infer<typeof toolServerOAuthSchema>;

export const toolServerSettingsSchema = z
  .strictObject({
    /** Its tools are offered to the model as `<name>__<tool>`. */
    name: z.string().refine(isToolServerName, 'must match ^[a-z][a-z0-9_-]{0,31}$, hold no "__" and not end with "_"'),
    /** The server's MCP endpoint (Streamable HTTP; servers that only speak the older HTTP+SSE transport work too). */
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
      .max(2000)
      // zod runs this refinement even when the URL check failed: an unparsable value is that check's to report.
      .refine((u) => !URL.canParse(u) || !hasCredentials(new URL(u)), 'must not carry credentials; use headers')
      .describe('The MCP endpoint: Streamable HTTP, or the older HTTP+SSE transport'),
    /**
     * Sent with every request. `{"secret": "NAME"}` takes the value from the org's secret NAME when the
     * call is made; a plain string is allowed only for headers that carry no credential.
     */
    headers: z
      .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be an HTTP header name'), headerValueSchema)
      .optional()
      .describe(
        'Sent with every request: {"secret": "NAME"} takes the org secret NAME when the call is made; a plain string only for headers that carry no credential',
      ),
    /** The server's own tool names the agent may call; all of them when left out. */
    allowed_tools: z
      .array(z.string().min(1).max(128))
      .max(200)
      .optional()
      .describe("The server's own tool names the agent may call; all when left out"),
    /** How long one tool call may take, in seconds (default 60, at most 900). */
    timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(900)
      .optional()
      .describe('How long one tool call may take, in seconds (default 60)'),
    /** OAuth (client credentials, or authorization code with Connect): the worker sends the bearer token as `Authorization`. */
    oauth: toolServerOAuthSchema.optional(),
  })
  .superRefine((server, ctx) => {
    for (const [header, value] of Object.entries(server.headers ?? {})) {
      if (TRANSPORT_HEADERS.has(header.toLowerCase()))
        ctx.addIssue({ code: 'custom', path: ['headers', header], message: 'is set by the MCP transport' });
      else if (server.oauth && header.toLowerCase() === 'authorization')
        ctx.addIssue({
          code: 'custom',
          path: ['headers', header],
          message: 'is set from the OAuth token: leave it out, or leave out oauth',
        });
      else if (typeof value === 'string' && isCredentialHeader(header))
        ctx.addIssue({
          code: 'custom',
          path: ['headers', header],
          message: 'carries a credential: take it from an org secret ({"secret": "NAME"})',
        });
    }
  });

export const toolServersSchema = z
  .array(toolServerSettingsSchema)
  .max(10)
  .superRefine((servers, ctx) => {
    const seen = new Set<string>();
    servers.forEach((s, i) => {
      if (seen.has(s.name))
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate tool server name ${s.name}` });
      seen.add(s.name);
    });
  });

export type ToolServerSettings = z.infer<typeof toolServerSettingsSchema>;

/** The secrets a server's headers name. */
export function headerSecretNames(server: ToolServerSettings): string[] {
  return Object.values(server.headers ?? {}).flatMap((v) => (typeof v === 'string' ? [] : [v.secret]));
}

/**
 * Every secret a server names that must exist before it is used (its headers', its OAuth client
 * secret), with where it is named. Not the authorization-code grant's `refresh_token`: Connect writes that one.
 */
export function toolServerSecretNames(server: ToolServerSettings): { name: string; field: string }[] {
  const clientSecret = server.oauth?.client_secret?.secret;
  const privateKey = server.oauth?.grant === 'client_credentials' ? server.oauth.private_key?.secret : undefined;
  return [
    ...headerSecretNames(server).map((name) => ({ name, field: 'headers' })),
    ...(clientSecret ? [{ name: clientSecret, field: 'oauth.client_secret' }] : []),
    ...(privateKey ? [{ name: privateKey, field: 'oauth.private_key' }] : []),
  ];
}
