import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { z } from 'zod';
import { missingServerSecrets } from '../../admin/tool-server-secrets.ts';
import { toolServerRef } from '../../shared/run-settings.ts';
import { OrgIdAttr } from '../../shared/search-attributes.ts';
import { toolServerSettingsSchema } from '../../shared/tool-server-settings.ts';
import { formatIssues } from '../../shared/zod-issues.ts';
import { toolServerCheckWorkflow } from '../../workflows/index.ts';
import { badRequest, unavailable } from '../errors.ts';
import { defineRoute } from '../route.ts';
import { errorResponses, errorSchema } from '../schemas/common.ts';
import { requireOrgAdmin } from '../services/org-admin-access.ts';

/*
 * "Test connection" of Admin → Agents: a tool server as an agent's settings define it, connected
 * and listed once by a worker (a short workflow), with the same outbound guard and secrets as a run.
 */

// The shape JSON Schema can state (a body outside it is 422); the rules of agent settings it cannot
// (names, URL schemes, credentials only from secrets) are checked after it, as 400.
export const testToolServerSchema = z
  .strictObject({
    name: z.string().max(64).describe('Its tools are named `<name>__<tool>`: ^[a-z][a-z0-9_-]{0,31}$, no "__"'),
    url: z.string().max(2000).describe('The MCP endpoint (http or https): Streamable HTTP, or the older HTTP+SSE'),
    headers: z
      .record(z.string(), z.union([z.strictObject({ secret: z.string() }), z.string().max(1000)]))
      .optional()
      .describe(
        'Sent with every request: {"secret": "NAME"} takes the org secret NAME; a plain string only for headers that carry no credential',
      ),
    allowed_tools: z.array(z.string().max(128)).max(200).optional().describe("The server's own tool names to offer"),
    timeout_seconds: z.number().int().min(1).max(900).optional().describe('Per tool call (not used by the test)'),
    oauth: z
      .discriminatedUnion('grant', [
        z.strictObject({
          grant: z.literal('client_credentials'),
          client_id: z.string().min(1).max(500),
          client_secret: z
            .strictObject({ secret: z.string() })
            .optional()
            .describe('{"secret": "NAME"}: the org secret NAME (this, or private_key)'),
          private_key: z
            .strictObject({ secret: z.string() })
            .optional()
            .describe('{"secret": "NAME"}: private_key_jwt, the org secret holding the PKCS#8 PEM key'),
          signing_algorithm: z
            .enum(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'])
            .optional()
            .describe('The algorithm of private_key (default RS256)'),
          scope: z.string().max(1000).optional(),
          issuer: z.string().max(2000).optional().describe('The only authorization server the client secret may go to'),
        }),
        z.strictObject({
          grant: z.literal('authorization_code'),
          client_id: z.string().min(1).max(500).optional().describe('Left out: dynamic client registration'),
          client_secret: z.strictObject({ secret: z.string() }).optional().describe('{"secret": "NAME"}'),
          scope: z.string().max(1000).optional(),
          issuer: z.string().max(2000).optional().describe('The only authorization server the credentials may go to'),
          refresh_token: z
            .strictObject({ secret: z.string() })
            .describe('{"secret": "NAME"}: the org secret Connect writes (POST /api/admin/tool-servers/connect)'),
        }),
      ])
      .optional()
      .describe(
        'OAuth: client credentials (the worker gets the token), or authorization code (an admin connects once: docs/mcp.md)',
      ),
  })
  .meta({ id: 'ToolServerTestRequest' });

const testResultSchema = z
  .object({
    ok: z.boolean().describe('The server answered and listed its tools'),
    server: z.string(),
    transport: z.enum(['streamable-http', 'sse']).nullable().describe('The transport it answered on'),
    tools: z
      .array(
        z.object({
          name: z.string().describe('As the model sees it: `<server>__<tool>`'),
          tool: z.string().describe("The server's own name"),
          description: z.string(),
        }),
      )
      .describe('What a run would offer the model (within allowed_tools)'),
    count: z.number().int(),
    unknown_allowed_tools: z.array(z.string()).describe('Names in allowed_tools the server does not offer'),
    reason: z.string().nullable().describe('Why it failed (when ok is false): one line, never a header value'),
  })
  .meta({ id: 'ToolServerTestResult' });

/** A test waits at most this long for a worker to connect and list (the activity itself gives up after 15 s). */
const TEST_WINDOW = '45 seconds';

export const adminToolServerRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/admin/tool-servers/test',
    operationId: 'testToolServer',
    summary: 'Test a tool server connection',
    description:
      "Organization-scoped; no X-Agent-Id needed. Owners and admins only (members and guests get 403). The body is one entry of an agent's " +
      '`tool_servers`, saved or not. A worker connects to it as a run would (same outbound address guard, header secrets opened ' +
      'there by name, Streamable HTTP then HTTP+SSE) and lists its tools. A server that cannot be reached or listed is still 200, with ' +
      '`ok: false` and the `reason`; a definition agent settings would refuse, or one naming a secret the org does not have, is 400.',
    tags: ['admin'],
    auth: 'user',
    rateLimit: 'approvals',
    body: testToolServerSchema,
    responses: {
      200: { description: 'What the server offers, or why it could not be listed', schema: testResultSchema },
      400: {
        description:
          'Not a valid tool server of agent settings, or it names a secret (header, OAuth client secret) the org does not have',
        schema: errorSchema,
      },
      503: { description: 'No worker ran the test in time (try again)', schema: errorSchema },
      ...errorResponses,
    },
    async handler({ caller, body }, { db, temporal, config }) {
      requireOrgAdmin(caller);
      const parsed = toolServerSettingsSchema.safeParse(body);
      if (!parsed.success) throw badRequest(formatIssues(parsed.error.issues, { root: 'body' }).join('; '));
      const server = parsed.data;
      const missing = await missingServerSecrets(db, caller.orgId, server);
      if (missing.length)
        throw badRequest(
          `the org has no secret named ${missing.map((m) => `${m.name} (body.${m.field})`).join(', ')}; set it first with PUT /api/admin/secrets/{name}`,
        );
      const check = await temporal.workflow
        .execute(toolServerCheckWorkflow, {
          taskQueue: config.temporal.taskQueue,
          workflowId: `tool-server-check-${randomUUID()}`,
          workflowExecutionTimeout: TEST_WINDOW,
          args: [{ orgId: caller.orgId, server: toolServerRef(server) }],
          typedSearchAttributes: [{ key: OrgIdAttr, value: caller.orgId }],
          staticSummary: `Connection test of tool server ${server.name}`,
        })
        .catch((err: unknown) => {
          // The window closed with no worker to run the check: nothing was learnt about the server.
          if (err instanceof WorkflowFailedError) throw unavailable('no worker ran the connection test in time', 5);
          throw err;
        });
      return {
        ok: check.ok,
        server: server.name,
        transport: check.transport ?? null,
        tools: check.tools,
        count: check.tools.length,
        unknown_allowed_tools: check.unknownAllowedTools,
        reason: check.reason ?? null,
      };
    },
  }),
];
