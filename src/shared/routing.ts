import type { RunMode } from './events.ts';
import type { RequestedMode } from './run-request.ts';

export interface Routing {
  mode: RunMode;
  reason: string;
}

const DEEP_HINTS = /\b(plan|step[- ]by[- ]step|research|investigate|analy[sz]e|compare|refactor|migrate)\b/i;
const DEEP_LENGTH = 600;

/**
 * The `auto` router: deep for long requests or ones that ask for planning or
 * analysis, fast otherwise. An explicit `fast`/`deep` is honoured as asked.
 */
export function routeRun(requested: RequestedMode, query: string): Routing {
  if (requested !== 'auto') return { mode: requested, reason: `mode "${requested}" was requested explicitly` };
  if (query.length >= DEEP_LENGTH)
    return { mode: 'deep', reason: `auto: the request is long (${query.length} characters ≥ ${DEEP_LENGTH})` };
  const hint = DEEP_HINTS.exec(query);
  if (hint) return { mode: 'deep', reason: `auto: the request asks for multi-step work ("${hint[0]}")` };
  return { mode: 'fast', reason: 'auto: a short, direct request' };
}
