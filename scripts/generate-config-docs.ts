/** `npm run docs:config`: rewrites the variables table of docs/configuration.md from src/config.ts's schema. */
import { readFileSync, writeFileSync } from 'node:fs';
import { CONFIG_DOCS, withConfigTable } from './config-docs.ts';

writeFileSync(CONFIG_DOCS, withConfigTable(readFileSync(CONFIG_DOCS, 'utf8')));
console.log('docs:config: wrote docs/configuration.md');
