#!/usr/bin/env node
// The agent-run command. In the repository it runs the TypeScript sources through tsx (so there is
// no build to forget); a published package runs its build in dist/.
import { existsSync } from 'node:fs';

const source = new URL('../src/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/main.js', import.meta.url).href);
}
