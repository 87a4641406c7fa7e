import type { Request, RequestHandler } from 'express';
import { looksLikeApiKey } from '../../auth/api-keys.ts';
import { InvalidTokenError } from '../../auth/tokens.ts';
import { isDomainError } from '../../shared/domain-error.ts';
import type { ApiDeps } from '../deps.ts';
import { forbidden, HttpError, unauthorized } from '../errors.ts';
import { currentCaller } from '../middleware/authenticate.ts';
import { holderOfKey } from '../services/key-exchange.ts';

export const MCP_PATH = '/mcp';
/** RFC 9728: the metadata of the resource at /mcp, at the well-known path with the resource's path appended. */
export const RESOURCE_METADATA_PATHS = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
];

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** The api's public base URL: configured, or as this request reached us (its Host was checked). */
export function baseUrlOf(req: Request, deps: ApiDeps): string {
  return deps.config.http.publicBaseUrl ?? `${req.protocol}://${req.get('host')}`;
}

/** RFC 9728 protected-resource metadata: what /mcp is and how a client presents its token. */
export function resourceMetadata(deps: ApiDeps): RequestHandler {
  return (req, res) => {
    const base = baseUrlOf(req, deps);
    res.json({
      resource: `${base}${MCP_PATH}`,
      resource_name: 'Agent Run Service agents',
      bearer_methods_supported: ['header'],
      resource_documentation: `${base}/docs`,
    });
  };
}

/**
 * DNS-rebinding protection: the Host must be loopback or the public base URL's host, and an
 * Origin (sent by browsers) must be loopback, the public base URL or one of CORS_ORIGINS.
 * A page on another site can then never drive /mcp through a victim's browser.
 */
export function dnsRebindingGuard(deps: ApiDeps): RequestHandler {
  const base = deps.config.http.publicBaseUrl ? new URL(deps.config.http.publicBaseUrl) : undefined;
  const origins = new Set([...(base ? [base.origin] : []), ...deps.config.http.corsOrigins]);
  return (req, _res, next) => {
    const host = hostnameOf(`http://${req.get('host') ?? ''}`);
    if (!host || !(LOOPBACK_HOSTS.has(host) || host === base?.hostname)) throw forbidden(`Host ${host} is not allowed`);
    const origin = req.get('origin');
    if (origin !== undefined && !origins.has(origin) && !LOOPBACK_HOSTS.has(hostnameOf(origin) ?? '')) {
      throw forbidden(`Origin ${origin} is not allowed`);
    }
    next();
  };
}

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/**
 * `Authorization: Bearer <token or API key>`: a token as every route takes it, or an API key
 * itself (MCP clients keep one static header; a token lasts an hour). A 401 names the
 * protected-resource metadata in `WWW-Authenticate`, as MCP's authorization spec asks.
 */
export function mcpAuthentication(deps: ApiDeps): RequestHandler {
  return async (req, _res, next) => {
    try {
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
      if (!bearer) throw unauthorized('Missing bearer token (a token or an API key)');
      if (looksLikeApiKey(bearer)) {
        const holder = await holderOfKey(deps, req.ip ?? 'unknown', bearer);
        req.caller = { userId: holder.userId, orgId: holder.orgId, role: holder.role };
      } else {
        const claims = await deps.tokens.verify(bearer).catch((err: unknown) => {
          throw err instanceof InvalidTokenError ? unauthorized(err.message) : err;
        });
        if (claims.widget) throw unauthorized('A widget visitor token is not valid on /mcp');
        req.caller = await currentCaller(deps.db, claims);
      }
    } catch (err) {
      const status = err instanceof HttpError ? err.status : isDomainError(err, 'unauthenticated') ? 401 : 0;
      if (status !== 401) throw err;
      const metadata = `${baseUrlOf(req, deps)}${RESOURCE_METADATA_PATHS[1]}`;
      throw new HttpError(401, (err as Error).message, {
        'WWW-Authenticate': `Bearer resource_metadata="${metadata}"`,
      });
    }
    next();
  };
}

/** Tool calls start runs: each counts against the 'runs' limit, as POST /api/run does. */
export function toolCallLimit(deps: ApiDeps): RequestHandler {
  return async (req, _res, next) => {
    const messages: unknown[] = Array.isArray(req.body) ? req.body : [req.body];
    const calls = messages.filter((m) => (m as { method?: unknown } | null)?.method === 'tools/call').length;
    for (let i = 0; i < calls; i++) await deps.rateLimits.consume('runs', req.caller!);
    next();
  };
}
