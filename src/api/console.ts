import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type Express, type RequestHandler } from 'express';
import { projectRoot } from '../config.ts';
import { HttpError } from './errors.ts';

/** Where `npm run setup` / `npm run build` put the console's built files (src/build/console.ts). */
export const CONSOLE_DIST = path.join(projectRoot, 'dist', 'console');

/** The console loads only its own script and stylesheet and talks only to this origin. */
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export interface ConsoleSettings {
  /** Base url of the Temporal Web UI, e.g. http://127.0.0.1:8233. */
  temporalUiUrl: string;
  temporalNamespace: string;
  /** The start command's demo tenant file: while it exists, the sign-in page says where the demo key is. */
  demoTenantFile?: string;
  /** The built files (default CONSOLE_DIST). */
  dir?: string;
}

/**
 * GET /console: the web console (a single-page app). Its built files are served with a CSP of
 * their own (the rest of the api keeps `default-src 'none'`); any other path under /console gets
 * index.html, so a reload of a deep link works. GET /console/config.json tells the page where the
 * Temporal Web UI shows a run's workflow and, on the `npm start` stack, where its demo API key is (never the key).
 */
export function mountConsole(app: Express, settings: ConsoleSettings): void {
  const dir = settings.dir ?? CONSOLE_DIST;
  const index = path.join(dir, 'index.html');
  const withCsp: RequestHandler = (_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    next();
  };
  app.get('/console/config.json', (_req, res) => {
    res.json({
      temporal_workflows_url: `${settings.temporalUiUrl}/namespaces/${encodeURIComponent(settings.temporalNamespace)}/workflows`,
      ...(settings.demoTenantFile && existsSync(settings.demoTenantFile)
        ? { demo_key_hint: `the "Demo API key" line of npm start's banner, also kept in ${settings.demoTenantFile}` }
        : {}),
    });
  });
  app.use('/console', withCsp, express.static(dir, { index: false, maxAge: '5m' }));
  app.get(['/console', '/console/*rest'], withCsp, (req, res, next) => {
    // A missing script or stylesheet is a 404, not the page.
    if (/\.\w+$/.test(req.path)) return next();
    if (!existsSync(index))
      return next(new HttpError(503, 'The console is not built: run `npm run setup` (or `npm run build`)'));
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
}
