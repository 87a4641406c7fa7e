import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { canConnect, ensureDatabase, type DatabaseHandle } from '../../src/embedded/postgres.ts';
import { freeListenPort } from '../support/ports.ts';
import { eventually } from '../support/eventually.ts';

/** The embedded PostgreSQL of `npm start` (no DATABASE_URL), on a port and in data directories of this test's own. */
const dirs: string[] = [];
const handles: DatabaseHandle[] = [];

afterAll(async () => {
  for (const handle of handles) await handle.stop?.();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ars-embedded-'));
  chmodSync(dir, 0o755); // as root, the server runs as the `postgres` user, who must reach its directory
  dirs.push(dir);
  return dir;
}

function postmasterOf(dir: string): number {
  return Number(
    execFileSync('pgrep', ['-f', '--', `-D ${path.join(dir, 'postgres')}`], { encoding: 'utf8' })
      .trim()
      .split('\n')[0],
  );
}

describe('the embedded PostgreSQL', () => {
  it(
    'another data directory finds the server on its port and says whose data it keeps; the same one does not',
    { timeout: 120_000 },
    async () => {
      const port = String(await freeListenPort());
      const [a, b] = [dataDir(), dataDir()];
      const first = await ensureDatabase(loadConfig({ DATA_DIR: a, EMBEDDED_POSTGRES_PORT: port }));
      handles.push(first);
      expect(first.stop).toBeDefined();

      const said: string[] = [];
      const other = await ensureDatabase(loadConfig({ DATA_DIR: b, EMBEDDED_POSTGRES_PORT: port }), (m) =>
        said.push(m),
      );
      expect(other).toEqual({ url: first.url });
      expect(said).toEqual([
        expect.stringContaining(`keeps its data in ${path.join(a, 'postgres')}, not ${path.join(b, 'postgres')}`),
      ]);

      const sameSaid: string[] = [];
      await ensureDatabase(loadConfig({ DATA_DIR: a, EMBEDDED_POSTGRES_PORT: port }), (m) => sameSaid.push(m));
      expect(sameSaid).toEqual([]);
    },
  );

  it(
    'stopping a server that was killed returns at once instead of waiting for an exit that already came',
    { timeout: 120_000 },
    async () => {
      const port = String(await freeListenPort());
      const dir = dataDir();
      const handle = await ensureDatabase(loadConfig({ DATA_DIR: dir, EMBEDDED_POSTGRES_PORT: port }));
      handles.push(handle);
      process.kill(postmasterOf(dir), 'SIGKILL');
      await eventually(
        'PostgreSQL to refuse connections',
        async () => expect(await canConnect(handle.url)).toBe(false),
        { timeout: 10_000 },
      );
      const stopped = await Promise.race([
        handle.stop!().then(() => 'stopped'),
        new Promise((r) => setTimeout(() => r('still waiting'), 10_000)),
      ]);
      expect(stopped).toBe('stopped');
    },
  );
});
