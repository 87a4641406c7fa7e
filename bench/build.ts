import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/config.ts';
import type { ServiceMode } from '../test/support/stack.ts';

/**
 * What the benches measure: by default the production processes (`node dist/main/api.js` and
 * `dist/main/worker.js`, as `npm run start:api` / `start:worker` run them), since tsx's loader
 * adds its own memory and start-up work. BENCH_PROCESSES=tsx measures the sources under tsx.
 */
export const BENCH_PROCESSES: ServiceMode = parseMode(process.env.BENCH_PROCESSES);

function parseMode(value: string | undefined): ServiceMode {
  if (value === undefined || value === '' || value === 'compiled') return 'compiled';
  if (value === 'tsx') return 'tsx';
  throw new Error(`BENCH_PROCESSES must be "compiled" or "tsx", not "${value}"`);
}

/** What `npm run build` reads: a change to any of these makes dist/ stale. */
const BUILD_INPUTS = ['src', 'scripts/bundle-workflows.ts', 'tsconfig.json', 'tsconfig.build.json'];
/** What the benches start from dist/: all must exist, and the oldest be newer than every input. */
const BUILD_OUTPUTS = ['dist/main/api.js', 'dist/main/worker.js', 'dist/workflow-bundle.js'];

function newestMtime(file: string): number {
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(file).map((entry) => newestMtime(path.join(file, entry))));
}

function oldestOutput(): number | undefined {
  try {
    return Math.min(...BUILD_OUTPUTS.map((file) => statSync(path.join(projectRoot, file)).mtimeMs));
  } catch {
    return undefined;
  }
}

/**
 * In compiled mode, runs `npm run build` when dist/ is missing or older than its sources, so a
 * bench never measures yesterday's code. Returns the line the bench prints about its processes.
 */
export function prepareBenchProcesses(log: (m: string) => void): string {
  if (BENCH_PROCESSES === 'tsx') return 'tsx (src/main/api.ts, src/main/worker.ts under the tsx loader)';
  const built = oldestOutput();
  const sources = Math.max(...BUILD_INPUTS.map((file) => newestMtime(path.join(projectRoot, file))));
  let how = 'dist/ up to date';
  if (built === undefined || built < sources) {
    log(built === undefined ? 'dist/ is missing: npm run build' : 'dist/ is older than src/: npm run build');
    const t0 = performance.now();
    // stdout to our stderr: the bench's stdout is its tables.
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: projectRoot, stdio: ['ignore', 2, 2] });
    if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status ?? build.signal})`);
    how = `built now in ${((performance.now() - t0) / 1000).toFixed(0)} s`;
  }
  return `compiled (node dist/main/api.js, dist/main/worker.js; ${how})`;
}
