import type { Express } from 'express';
import { OrgStartGate } from '../src/api/services/org-start-gate.ts';
import { createWorkspaceStore } from '@scalar/workspace-store/client';
import { describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/api/app.ts';
import { Drain } from '../src/api/drain.ts';
import type { ApiDeps } from '../src/api/deps.ts';
import { expressPath } from '../src/api/route.ts';
import { apiUrl } from './support/http.ts';

/** Endpoints that are infrastructure, not API operations. */
const UNDOCUMENTED = new Set([
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'GET /openapi.json',
  'GET /docs',
  'GET /docs/scalar.js',
  'GET /docs/openapi.json',
  'GET /widget.js',
  'GET /console/config.json',
  'GET /console,/console/*rest',
  // MCP (Streamable HTTP) is described by the MCP specification, not OpenAPI: docs/mcp.md.
  'POST /mcp',
  'GET /mcp',
  'DELETE /mcp',
  'GET /.well-known/oauth-protected-resource,/.well-known/oauth-protected-resource/mcp',
]);

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every method+path Express would answer, found by walking its router stacks. */
function expressRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route)
        for (const method of Object.keys(layer.route.methods))
          found.push(`${method.toUpperCase()} ${layer.route.path}`);
      else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return found;
}

describe('the OpenAPI document', () => {
  it('documents every route the api serves, and nothing it does not serve', async () => {
    const document = (await (await fetch(`${apiUrl()}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(document.openapi).toBe('3.1.0');
    const documented = Object.entries(document.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${expressPath(path)}`),
    );
    // Building the app only wires routes; no dependency is called, so none is needed.
    const served = expressRoutes(
      createApp({
        config: {
          heartbeatIntervalMs: 15_000,
          http: { corsOrigins: [] },
          observability: {},
          temporal: { uiUrl: 'http://127.0.0.1:8233', namespace: 'default' },
          dataDir: '/nonexistent',
        },
        drain: new Drain(),
        startGate: new OrgStartGate(8),
      } as unknown as ApiDeps),
    ).filter((r) => !UNDOCUMENTED.has(r));
    expect(served.length).toBeGreaterThan(2);
    expect([...served].sort()).toEqual([...documented].sort());
  });

  it('gives every operation a description, an error response and schemas for its bodies', async () => {
    const document = (await (await fetch(`${apiUrl()}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            description?: string;
            operationId?: string;
            responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
          }
        >
      >;
    };
    for (const [path, ops] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const name = `${method.toUpperCase()} ${path}`;
        expect(op.description, name).toBeTruthy();
        expect(op.operationId, name).toBeTruthy();
        expect(
          Object.keys(op.responses).some((s) => Number(s) >= 400),
          name,
        ).toBe(true);
        for (const [status, response] of Object.entries(op.responses)) {
          for (const [type, media] of Object.entries(response.content ?? {}))
            expect(media.schema, `${name} ${status} ${type}`).toBeTruthy();
        }
      }
    }
  });

  it('includes the SSE event schemas and serves the interactive reference, script and all, from our own origin', async () => {
    const document = (await (await fetch(`${apiUrl()}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
      components: { schemas: Record<string, unknown> };
    };
    const stream = document.paths['/api/run']!.post!.responses['200']!.content!['text/event-stream'] as {
      schema: unknown;
    };
    // Each frame's data is one event of the named RunEvent schema, which code generators turn into a typed union.
    expect(JSON.stringify(stream.schema)).toContain('"contentSchema":{"$ref":"#/components/schemas/RunEvent"}');
    const text = JSON.stringify(document.components.schemas.RunEvent);
    for (const type of ['RUN_STARTED', 'TEXT_MESSAGE_CONTENT', 'RUN_FINISHED', 'RUN_ERROR', 'CUSTOM'])
      expect(text).toContain(type);
    const page = await fetch(`${apiUrl()}/docs`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    // Every script the page loads is ours (no CDN), and the CSP lets the browser load nothing from elsewhere.
    const sources = [...html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);
    expect(sources).toEqual(['/docs/scalar.js']);
    expect(html).toContain('"url": "/docs/openapi.json"');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'self' 'sha256-[\w+/=]+'(;|$)/);
    expect(csp).toContain("connect-src 'self'");
    const script = await fetch(`${apiUrl()}/docs/scalar.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect((await script.text()).length).toBeGreaterThan(100_000);
  });

  it('gives the reference page a document its validator accepts, with every operation of /openapi.json', async () => {
    const read = async (p: string) => (await (await fetch(`${apiUrl()}${p}`)).json()) as { paths: object };
    const [original, forPage] = await Promise.all([read('/openapi.json'), read('/docs/openapi.json')]);
    expect(Object.keys(forPage.paths)).toEqual(Object.keys(original.paths));
    // What the page does with it in the browser (it logs "document validation errors" as warnings).
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      for (const [document, errors] of [
        [original, true],
        [forPage, false],
      ] as const) {
        warn.mockClear();
        expect(await createWorkspaceStore().addDocument({ name: 'api', document: document as never })).toBe(true);
        expect(warn.mock.calls.some((args) => String(args[0]).includes('validation errors'))).toBe(errors);
      }
    } finally {
      warn.mockRestore();
    }
  });
});
