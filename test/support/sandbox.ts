import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { inject } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { SandboxHost } from '../../src/sandbox/host.ts';
import { unmountDisksBelow } from '../../src/sandbox/workspace-disk.ts';
import { testDb } from './tenant.ts';

/** Small limits so the tests hit them quickly. */
export const testLimits = {
  SANDBOX_MAX_OUTPUT_BYTES: String(64 * 1024),
  SANDBOX_MAX_PROCESSES: '64',
  SANDBOX_MAX_FILE_BYTES: String(1024 * 1024),
  SANDBOX_MEMORY_BYTES: String(1024 * 1024 * 1024),
  SANDBOX_DISK_BYTES: String(64 * 1024 * 1024),
  SANDBOX_SNAPSHOTS_KEPT: '3',
};

const dataDirs: string[] = [];

/** A data directory of its own and the real database: one SandboxHost is one worker process's view. */
export function sandboxConfig(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ars-sandbox-'));
  dataDirs.push(dataDir);
  return loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: inject('databaseUrl'),
    JWT_SECRET: 'x'.repeat(40),
    ...testLimits,
    ...env,
  });
}

export function sandboxHost(config = sandboxConfig()): SandboxHost {
  return new SandboxHost({
    db: testDb(),
    config,
    logger: pino({ level: 'silent' }),
    databaseUrl: inject('databaseUrl'),
  });
}

/** Host processes whose command line contains `pattern` (pgrep -f), so tests can prove nothing survived. */
export function hostProcesses(pattern: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', '-a', pattern], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((l) => !l.includes('pgrep'));
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** A number that makes a command line unique on this host (`sleep 100.<n>`). */
export const uniqueTag = () => String(Math.floor(Math.random() * 1e9));

/** Removes the data directories this test file made (call from afterAll). */
export function removeSandboxDirs(): void {
  for (const dir of dataDirs.splice(0)) {
    unmountDisksBelow(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}
