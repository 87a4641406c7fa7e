import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/config.ts';

/** package.json's `start:<name>` script: the variables it sets (`NAME=value` before the command) and the command's words. */
export function startScript(name: 'api' | 'worker'): { text: string; env: [string, string][]; command: string[] } {
  const { scripts } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const text = scripts[`start:${name}`]!;
  const words = text.split(' ');
  const assignments = words.filter((w) => /^[A-Z_]+=/.test(w));
  return {
    text,
    env: assignments.map((a) => a.split('=') as [string, string]),
    command: words.slice(assignments.length),
  };
}
