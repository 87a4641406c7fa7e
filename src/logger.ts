import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON logs to stdout; `name` says which process wrote the line. */
export function createLogger(name: string, level: string): Logger {
  return pino({ name, level });
}
