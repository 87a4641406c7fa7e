import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';
import { projectRoot } from '../../config.ts';

/** The embeddable chat widget (plain browser JavaScript, no build step), shipped beside the code. */
export const WIDGET_SCRIPT_PATH = path.join(projectRoot, 'public', 'widget.js');

/**
 * Serves widget.js to any page: it runs on customers' sites, so it is loadable cross-origin
 * (Cross-Origin-Resource-Policy: cross-origin; the api's own CSP does not apply to a script
 * running in another page). Cached for 5 minutes, then revalidated by ETag.
 */
export function widgetScript(): RequestHandler {
  const body = readFileSync(WIDGET_SCRIPT_PATH);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return (req, res) => {
    res.set({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=300, must-revalidate',
      ETag: etag,
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Access-Control-Allow-Origin': '*',
    });
    if (req.get('if-none-match') === etag) {
      res.status(304).end();
      return;
    }
    res.send(body);
  };
}
