import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/**
 * Where secrets could appear in a log line: request headers (Authorization, cookies, API
 * keys), bodies and errors that carry keys or tokens. pino replaces them with "[redacted]".
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  '*.api_key',
  '*.apiKey',
  '*.access_token',
  '*.token',
  '*.secret',
  '*.password',
  '*.authorization',
  '*.Authorization',
  'err.config.headers',
  'err.requestBodyValues',
];

/** Secrets inside free text (messages, error strings): JWTs, our API keys, provider keys, bearer credentials. */
const SECRET_PATTERNS: RegExp[] = [
  /eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*/g,
  /ars_(?:live|test)_[\w-]+/g,
  /\bsk-[\w-]{8,}/g,
  /\bBearer\s+[\w.~+/-]+=*/gi,
];

export function scrubSecrets(text: string): string {
  return SECRET_PATTERNS.reduce((t, re) => t.replace(re, '[redacted]'), text);
}

/**
 * Scrubs the strings of what a log call was given: plain objects, arrays and errors.
 * Other objects (a request, a response) are left whole for their pino serializers,
 * whose secret-bearing fields the redact paths cover.
 */
function scrubDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return scrubDeep({ ...pino.stdSerializers.err(value) }, depth + 1);
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, depth + 1));
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubDeep(v, depth + 1)]));
}

export type LogFormat = 'auto' | 'json' | 'pretty';

export interface LoggerOptions {
  /** Fields of the code path a line comes from (the worker: the ids of the activity it belongs to), on every line. */
  context?: () => Record<string, unknown>;
  /** `auto`: lines for a person when stdout is a terminal (`npm start`), JSON otherwise. */
  format?: LogFormat;
}

/** Logs to stdout; `name` says which process wrote the line. No secret is ever written, in either format. */
export function createLogger(name: string, level: string, { context, format = 'json' }: LoggerOptions = {}): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    ...(context ? { mixin: context } : {}),
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    formatters: { log: (object) => scrubDeep(object) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as Parameters<typeof method>);
      },
    },
  };
  const forPerson = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  if (!forPerson) return pino(options);
  // In this thread (no transport worker), so a line is out before the process exits.
  return pino(options, pretty({ sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' }));
}
