import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/config.ts';

/** One check the suite judged, as it saves them in `checks.json`. */
export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  details?: unknown;
}

const SUITE = path.join(projectRoot, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/**
 * Runs `@modelcontextprotocol/conformance` with `args` (which name `-o dir`) and reads what it judged:
 * each run's directory under `runsDir` holds its `checks.json` (and, for a client scenario, the client's
 * `stderr.txt`, added to the log).
 */
export function runConformanceSuite(
  args: string[],
  runsDir: string,
): Promise<{ code: number | null; log: string; checks: Check[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SUITE, ...args], {
      cwd: projectRoot,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      try {
        const runs = readdirSync(runsDir, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => path.join(runsDir, e.name));
        const checks = runs.flatMap(
          (run) => JSON.parse(readFileSync(path.join(run, 'checks.json'), 'utf8')) as Check[],
        );
        const clientLogs = runs
          .map((run) => path.join(run, 'stderr.txt'))
          .filter((file) => existsSync(file))
          .map((file) => readFileSync(file, 'utf8'));
        resolve({ code, log: [log, ...clientLogs].join('\n'), checks });
      } catch (err) {
        reject(new Error(`no checks from the suite (${String(err)}):\n${log}`));
      }
    });
  });
}
