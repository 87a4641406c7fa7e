/** The CLI's version, read from its package.json. */
import { readFileSync } from 'node:fs';

export const version = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
