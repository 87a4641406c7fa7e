import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { RATE_LIMIT_DOCS, rateLimitClassesOf } from './middleware/rate-limit.ts';
import type { RouteSpec } from './route.ts';
import { errorSchema } from './schemas/common.ts';

const agentHeader = z.object({
  'x-agent-id': z.string().describe('The agent to act through; checked against your org and access list'),
});

/** The OpenAPI 3.1 document, built from the same route specs and zod schemas that serve requests. */
export function buildOpenApiDocument(routes: RouteSpec[], serverUrl?: string) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  registry.registerComponent('securitySchemes', 'session', { type: 'apiKey', in: 'cookie', name: 'auth_session' });
  for (const route of routes) {
    const security: Record<string, string[]>[] =
      route.auth === 'none' ? [] : route.cookie ? [{ bearer: [] }, { session: [] }] : [{ bearer: [] }];
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: route.tags,
      security,
      request: {
        params: route.params as never,
        query: route.query as never,
        headers: requestHeaders(route),
        body: requestBody(route),
      },
      responses: {
        ...Object.fromEntries(
          Object.entries(route.responses).map(([status, r]) => [
            status,
            {
              description: r.description,
              content: r.schema
                ? {
                    [r.contentType ?? 'application/json']: {
                      schema:
                        r.contentType === 'text/event-stream'
                          ? (sseEventSchema(registry, r.schema) as never)
                          : r.schema,
                    },
                  }
                : undefined,
              headers: r.headers
                ? Object.fromEntries(
                    Object.entries(r.headers).map(([name, description]) => [
                      name,
                      { description, schema: { type: 'string' as const } },
                    ]),
                  )
                : undefined,
              links: r.links,
            },
          ]),
        ),
        ...bodyErrorResponses(route),
        ...rateLimitResponse(route),
        ...outageResponse(),
      },
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Agent Run Service',
      version: '0.1.0',
      description:
        'Runs AI agents durably. Errors are `{"detail": "..."}`; 422 bodies list `{loc, msg, type}` per problem. ' +
        'Streams are Server-Sent Events of AG-UI events with snake_case fields. A method a path does not list is 405 with `Allow`. ' +
        'NUL characters (U+0000) are removed from input strings (PostgreSQL text cannot hold them).',
    },
    servers: serverUrl ? [{ url: serverUrl }] : [],
  });
}

/** The JSON body, required unless its schema takes none (e.g. run control's optional `{reason?}`). */
function requestBody(route: RouteSpec) {
  const schema = route.body ?? route.bodyDoc;
  if (!schema) return undefined;
  return { content: { 'application/json': { schema } }, required: !schema.safeParse(undefined).success };
}

function requestHeaders(route: RouteSpec): z.ZodObject | undefined {
  if (route.auth === 'agent' && route.headers) return agentHeader.extend(route.headers.shape);
  return route.auth === 'agent' ? agentHeader : route.headers;
}

/**
 * One Server-Sent Event as OpenAPI 3.1 tools read a stream's `schema` (and 3.2 its `itemSchema`):
 * the `id`/`event`/`data` fields of the frame, `data` being JSON text of one event of `eventSchema`.
 * A named event schema (meta `id`, e.g. RunEvent) becomes a component and is referenced, so code
 * generators (the typed client in packages/client) get the event union by name.
 */
function sseEventSchema(registry: OpenAPIRegistry, eventSchema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...event } = z.toJSONSchema(eventSchema, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  });
  const id = z.globalRegistry.get(eventSchema)?.id;
  if (!id) return sseFrame(event);
  // A root with an id comes out as {$ref: '#/$defs/<id>', $defs}; the definition becomes the component.
  const defs = event.$defs as Record<string, Record<string, unknown>> | undefined;
  registry.registerComponent('schemas', id, (defs?.[id] ?? event) as never);
  return sseFrame({ $ref: `#/components/schemas/${id}` });
}

function sseFrame(event: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      id: { type: 'string', description: '`<run_id>:<seq>`; resume after it with `Last-Event-ID` or `last_event_id`' },
      event: { type: 'string' },
      data: { type: 'string', contentMediaType: 'application/json', contentSchema: event },
    },
    required: ['data'],
  };
}

/** Every operation with a JSON body can meet the body parser's refusals (src/api/errors.ts, MAX_BODY_BYTES in app.ts). */
function bodyErrorResponses(route: RouteSpec): Record<number, ResponseConfig> {
  if (!route.body && !route.bodyDoc) return {};
  const json = { 'application/json': { schema: errorSchema } };
  const declared = route.responses[400]?.description;
  const malformed = 'the body is not valid JSON, or not a JSON object';
  return {
    400: { description: declared ? `${declared}; or ${malformed}` : `Bad request: ${malformed}`, content: json },
    413: { description: 'The body is larger than 1 MiB', content: json },
  };
}

/** Any operation can meet a PostgreSQL or Temporal outage (src/connections/transient-errors.ts): 503, retry later. */
function outageResponse(): Record<number, ResponseConfig> {
  return {
    503: {
      description:
        'PostgreSQL or Temporal is briefly unreachable (or a run could not be started). Wait `Retry-After` seconds, then ' +
        'retry; starting a run is safe to retry with the same `Idempotency-Key`.',
      headers: {
        'Retry-After': {
          description: 'Seconds to wait before retrying',
          schema: { type: 'integer' as const, minimum: 1 },
        },
      },
      content: { 'application/json': { schema: errorSchema } },
    },
  };
}

/** Every rate-limited route documents its 429 with the `Retry-After` header (see middleware/rate-limit.ts). */
function rateLimitResponse(route: RouteSpec): Record<number, ResponseConfig> {
  const classes = rateLimitClassesOf(route);
  if (classes.length === 0) return {};
  const limits = classes.map((c) => RATE_LIMIT_DOCS[c]).join('; ');
  return {
    429: {
      description: `Rate limit exceeded, counted per organization and user across all api replicas (${limits}). Wait \`Retry-After\` seconds, then retry.`,
      headers: {
        'Retry-After': {
          description: 'Seconds until the limit allows another request',
          schema: { type: 'integer' as const, minimum: 1 },
        },
      },
      content: { 'application/json': { schema: errorSchema } },
    },
  };
}
