import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { ApiDeps } from './deps.ts';
import type { AgentContext, Caller } from '../auth/caller.ts';
import { authenticate, requireAgent } from './middleware/authenticate.ts';
import { notAllowed } from './errors.ts';
import { rateLimit, rateLimitClassesOf, type RateLimitClass } from './middleware/rate-limit.ts';
import { parse } from './validation.ts';
import { authenticateVisitor } from './widget/visitor-auth.ts';

/**
 * Who may call a route: nobody in particular, any signed-in user, a user acting through `X-Agent-Id`,
 * or a widget visitor (a visitor token; the agent comes from its widget key).
 */
export type RouteAuth = 'none' | 'user' | 'agent' | 'visitor';

export interface ResponseSpec {
  description: string;
  /** JSON body schema; for SSE routes, the schema of one event. */
  schema?: z.ZodType;
  contentType?: 'application/json' | 'text/event-stream' | 'text/html';
  /** Response headers: name → description (documented as strings). */
  headers?: Record<string, string>;
  /** OpenAPI links: the operations this answer's ids lead to (clients and schemathesis's stateful phase follow them). */
  links?: Record<string, ResponseLink>;
}

/** An OpenAPI link; values are runtime expressions such as `$response.body#/task_id`. */
export interface ResponseLink {
  operationId: string;
  description: string;
  parameters?: Record<string, string>;
  requestBody?: Record<string, unknown>;
}

export interface RouteContext<P, Q, B> {
  req: Request;
  res: Response;
  params: P;
  query: Q;
  body: B;
  /** Present when `auth` is 'user', 'agent' or 'visitor'. */
  caller: Caller;
  /** Present when `auth` is 'agent' or 'visitor'. */
  agent: AgentContext;
}

/**
 * One HTTP operation, declared once: the OpenAPI document and the Express
 * route are both built from this. The handler either returns a JSON body
 * (sent with `status`, default 200) or writes the response itself and returns undefined.
 */
export interface RouteSpec<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI-style path, e.g. `/api/tasks/{task_id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: RouteAuth;
  /** Accept the `auth_session` cookie in place of the Authorization header (tasks and runs endpoints). */
  cookie?: boolean;
  /** Middleware run after auth and before validation. */
  before?: (deps: ApiDeps) => RequestHandler[];
  /**
   * Count requests against this rate-limit class ('runs' for run creation). Every
   * `/api/tasks*` route counts as 'tasks' without saying so; both add a documented 429.
   */
  rateLimit?: RateLimitClass;
  params?: P;
  query?: Q;
  body?: B;
  /** Request headers the route reads, for the OpenAPI document (the handler reads them itself). */
  headers?: z.ZodObject;
  /** The documented body, for handlers that parse the body themselves (in steps, for clearer 422s). */
  bodyDoc?: z.ZodType;
  status?: number;
  responses: Record<number, ResponseSpec>;
  handler: (ctx: RouteContext<z.infer<P>, z.infer<Q>, z.infer<B>>, deps: ApiDeps) => Promise<unknown>;
}

/** Keeps the handler's parameter types tied to the schemas. */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  spec: RouteSpec<P, Q, B>,
): RouteSpec {
  return spec as unknown as RouteSpec;
}

export function expressPath(openApiPath: string): string {
  return openApiPath.replace(/\{(\w+)\}/g, ':$1');
}

/** Mounts each route: auth, rate limits, agent check, then `before` middleware, then validation, then the handler. */
export function mountRoutes(router: Router, routes: RouteSpec[], deps: ApiDeps): void {
  for (const route of routes) {
    const chain: RequestHandler[] = [];
    const startsRuns = route.rateLimit === 'runs';
    if (route.auth === 'visitor') chain.push(authenticateVisitor(deps));
    else if (route.auth !== 'none')
      chain.push(
        authenticate(deps.tokens, deps.db, {
          allowCookie: route.cookie ?? false,
          withAgent: route.auth === 'agent',
          ...(startsRuns ? { startGate: deps.startGate } : {}),
        }),
      );
    // Right after authentication: every authenticated request counts, even one refused later.
    for (const cls of rateLimitClassesOf(route)) chain.push(rateLimit(deps.rateLimits, cls));
    if (route.auth === 'agent') chain.push(requireAgent(deps.db));
    chain.push(...(route.before?.(deps) ?? []));
    if (startsRuns)
      chain.push((req, _res, next) => {
        req.releaseStartPlace?.(); // the start itself takes a place again (start-run.ts)
        next();
      });
    chain.push(async (req, res) => {
      req.body = withoutNul(req.body);
      const ctx: RouteContext<unknown, unknown, unknown> = {
        req,
        res,
        params: route.params ? parse(route.params, withoutNul(req.params), 'path') : req.params,
        query: route.query ? parse(route.query, withoutNul(req.query), 'query') : req.query,
        body: route.body ? parse(route.body, req.body ?? {}, 'body') : undefined,
        caller: req.caller!,
        agent: req.agent!,
      };
      const result = await route.handler(ctx as never, deps);
      if (result === undefined || res.headersSent) return;
      if (route.status) res.status(route.status);
      res.json(result);
    });
    router[route.method](expressPath(route.path), ...chain);
  }
  router.use(methodNotAllowed(routes));
}

/**
 * The input with U+0000 removed from every string: PostgreSQL text and jsonb cannot hold
 * it, so a NUL in a query filter or a message would otherwise end in a 500.
 */
export function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('\0') ? value.replaceAll('\0', '') : value) as T;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  const proto = value && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (proto === Object.prototype || proto === null) {
    return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [withoutNul(k), withoutNul(v)])) as T;
  }
  return value;
}

/**
 * A declared path called with a method it does not serve: 405 with `Allow` (RFC 9110),
 * in the `{detail}` format, rather than the 404 of an unknown path. OPTIONS and HEAD
 * are left to Express, which answers them from the routes above.
 */
export function methodNotAllowed(routes: RouteSpec[]): RequestHandler {
  const paths = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const route of routes) {
    const pattern = new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}/?$`);
    const entry = paths.get(route.path) ?? { pattern, methods: new Set<string>() };
    entry.methods.add(route.method.toUpperCase());
    paths.set(route.path, entry);
  }
  return (req, _res, next) => {
    const entry = [...paths.values()].find((p) => p.pattern.test(req.path));
    if (
      !entry ||
      entry.methods.has(req.method) ||
      req.method === 'OPTIONS' ||
      (req.method === 'HEAD' && entry.methods.has('GET'))
    )
      return next();
    const allow = [...entry.methods, ...(entry.methods.has('GET') ? ['HEAD'] : [])].join(', ');
    next(notAllowed(`Method ${req.method} is not allowed on ${req.path}; allowed: ${allow}`, allow));
  };
}
