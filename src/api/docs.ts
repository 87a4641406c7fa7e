import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { apiReference } from '@scalar/express-api-reference';
import type { Express, RequestHandler } from 'express';
import { scalarDocument } from './docs-document.ts';
import { HttpError } from './errors.ts';

const require = createRequire(import.meta.url);

/** Where the page loads Scalar's browser bundle from: our own origin, so /docs works offline and behind any egress filter. */
export const DOCS_SCRIPT_PATH = '/docs/scalar.js';
/** The console's icon (console/index.html). */
const ICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%230b5cad'/%3E%3Cpath d='M4 12 8 4l4 8' stroke='white' stroke-width='2' fill='none'/%3E%3C/svg%3E";
/** The document the page reads: /openapi.json as Scalar's validator wants it (docs-document.ts). */
const DOCS_DOCUMENT_PATH = '/docs/openapi.json';

/**
 * The browser bundle is one prebuilt file of the development dependency
 * `@scalar/api-reference` (whose own dependency tree is some 240 MB): a production build
 * copies just that file next to this module under this name.
 */
export const DOCS_SCRIPT_FILE = 'scalar.standalone.js';
const DOCS_SCRIPT_SOURCE = '@scalar/api-reference/browser/standalone.js';

function scriptFile(): string | undefined {
  const copied = path.join(import.meta.dirname, DOCS_SCRIPT_FILE);
  if (existsSync(copied)) return copied;
  try {
    return require.resolve(DOCS_SCRIPT_SOURCE);
  } catch {
    return undefined;
  }
}

/**
 * GET /docs: Scalar's interactive API reference over /openapi.json. Its browser script
 * is served from node_modules by us (never a CDN) and the page may talk to our origin
 * only: the CSP of these two paths allows our script, the page's one inline start-up
 * script (by its hash), Scalar's inline styles and data: images and fonts; the rest of the
 * api keeps helmet's `default-src 'none'`. Telemetry and web fonts are off.
 */
export function mountDocs(app: Express, document: { info: { title: string } }): void {
  const { title } = document.info;
  const page = apiReference({
    url: DOCS_DOCUMENT_PATH,
    cdn: DOCS_SCRIPT_PATH,
    pageTitle: `${title} API`,
    telemetry: false,
    withDefaultFonts: false,
    hideClientButton: true,
    showDeveloperTools: 'never',
    // Its "Ask AI" chat talks to Scalar's servers, which the page's CSP (and an offline install) refuse.
    agent: { disabled: true },
    favicon: ICON, // else the browser asks for /favicon.ico, a 404 in the page's console
  }) as unknown as RequestHandler;
  // The page is the same on every request: render it once and hash its inline script for the CSP.
  const html = render(page);
  const csp = docsCsp(html);
  app.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', csp);
    res.type('html').send(html);
  });
  const forScalar = scalarDocument(document);
  app.get(DOCS_DOCUMENT_PATH, (_req, res) => void res.json(forScalar));
  const script = scriptFile();
  app.get(DOCS_SCRIPT_PATH, (_req, res, next) => {
    if (!script) {
      next(
        new HttpError(
          503,
          `The API reference script is not installed: copy ${DOCS_SCRIPT_SOURCE} to ${DOCS_SCRIPT_FILE} next to docs.js`,
        ),
      );
      return;
    }
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('application/javascript').sendFile(script);
  });
}

/** The page's HTML: the middleware renders it from its configuration alone, into a stand-in response. */
function render(page: RequestHandler): string {
  let html = '';
  const res = { type: () => res, send: (body: string) => void (html = body) };
  void page({} as Parameters<RequestHandler>[0], res as unknown as Parameters<RequestHandler>[1], () => {});
  if (!html.includes(DOCS_SCRIPT_PATH))
    throw new Error('the API reference page does not load its script from our origin');
  return html;
}

function docsCsp(html: string): string {
  const hashes = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (m) =>
      `'sha256-${createHash('sha256')
        .update(m[1] ?? '')
        .digest('base64')}'`,
  );
  return [
    "default-src 'none'",
    `script-src 'self' ${hashes.join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}
