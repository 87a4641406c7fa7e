import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** The parts of a compose file the deploy tests read. */
export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  restart?: string;
  ports?: unknown[];
  volumes?: unknown[];
  user?: string;
  profiles?: string[];
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Parses compose YAML as docker compose does (YAML 1.1 merge keys `<<:` resolved). */
export function parseCompose(text: string): ComposeFile {
  return parse(text, { merge: true }) as ComposeFile;
}

export function readCompose(file: string): ComposeFile {
  return parseCompose(readFileSync(file, 'utf8'));
}

export function dependencies(service: ComposeService): Record<string, string | undefined> {
  const deps = service.depends_on ?? {};
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((d) => [d, undefined]));
  return Object.fromEntries(Object.entries(deps).map(([name, d]) => [name, d.condition]));
}

/** Service names in an order that starts each after everything it depends on (as compose does); throws on a cycle. */
export function startOrder(compose: ComposeFile): string[] {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`depends_on cycle: ${[...path, name].join(' -> ')}`);
    const service = compose.services[name];
    if (!service) throw new Error(`${path.at(-1)} depends on unknown service ${name}`);
    state.set(name, 'visiting');
    for (const dep of Object.keys(dependencies(service))) visit(dep, [...path, name]);
    state.set(name, 'done');
    order.push(name);
  };
  for (const name of Object.keys(compose.services)) visit(name, []);
  return order;
}

/**
 * Compose's variable interpolation on one value: `$$` is a literal `$`; `${VAR}`, `${VAR:-default}`,
 * `${VAR-default}`, `${VAR:?error}`, `${VAR?error}` (an error when the variable is missing).
 */
export function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (match, name, colon, op, arg, bare) => {
      if (match === '$$') return '$';
      if (bare) return vars[bare] ?? '';
      const v = vars[name];
      const missing = colon ? !v : v === undefined;
      if (op === '-') return missing ? arg : v!;
      if (op === '?') {
        if (missing) throw new Error(`required variable ${name} is missing: ${arg}`);
        return v!;
      }
      return v ?? '';
    },
  );
}

/** A service's environment as name → string, interpolated. */
export function environmentOf(
  service: ComposeService,
  vars: Record<string, string | undefined>,
): Record<string, string> {
  const env = service.environment ?? {};
  const entries = Array.isArray(env)
    ? env.map((line) => {
        const at = line.indexOf('=');
        return [line.slice(0, at), line.slice(at + 1)] as const;
      })
    : Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)] as const);
  return Object.fromEntries(entries.map(([k, v]) => [k, interpolate(v, vars)]));
}

const argv = (v: string | string[] | undefined): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v : ['/bin/sh', '-c', v];

/** What the container runs: entrypoint + command (exec form; a string is run by a shell), interpolated. */
export function commandOf(service: ComposeService, vars: Record<string, string | undefined>): string[] {
  return [...argv(service.entrypoint), ...argv(service.command)].map((a) => interpolate(a, vars));
}

/** The healthcheck as argv: ["CMD", ...] runs as is, ["CMD-SHELL", "…"] and a string through a shell. */
export function healthcheckOf(service: ComposeService, vars: Record<string, string | undefined>): string[] | undefined {
  const test = service.healthcheck?.test;
  if (!test || service.healthcheck?.disable) return undefined;
  const args =
    typeof test === 'string'
      ? ['/bin/sh', '-c', test]
      : test[0] === 'CMD'
        ? test.slice(1)
        : test[0] === 'CMD-SHELL'
          ? ['/bin/sh', '-c', test[1]!]
          : undefined;
  if (!args || args.length === 0) return undefined;
  return args.map((a) => interpolate(a, vars));
}
